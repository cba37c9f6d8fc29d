-- 0014_derive_fresh_event_ids: the fresh level of the id index (0013) is derived from the events instead of
-- stored beside them.
--
-- Its entries were exactly the events stored after the last move into event_ids_recent: events are never
-- deleted and their rowids grow, so those are the events whose rowid is above the rowid of the last move.
-- Storing them again in event_ids_fresh cost the collector's writer about a tenth of its time (an insert per
-- event at every commit, docs/storage-layout.md). Now event_ids_moved holds that one rowid; the writer reads
-- the events above it (their ids' keys computed again) when it starts, after a rollback and when another
-- connection has committed, and each move into event_ids_recent raises it in the same transaction
-- (EventIDIndex.swift). Entries already in event_ids_fresh move into event_ids_recent here.

CREATE TABLE event_ids_moved (
    through_event INTEGER NOT NULL -- events.rowid: every event up to it is in event_ids_recent or event_ids
);

INSERT INTO event_ids_recent (key, event) SELECT key, event FROM event_ids_fresh;

INSERT INTO event_ids_moved (through_event) SELECT ifnull(max(rowid), 0) FROM events;

DROP TABLE event_ids_fresh;

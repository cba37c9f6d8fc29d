-- 0013_add_fresh_event_ids: a third, smallest level of the id index, for writers that commit often.
--
-- Each commit inserted its new events' id keys into event_ids_recent (0011), a B-tree by key that holds up
-- to a million entries. Random keys land on random leaves: a commit of a few thousand events (the
-- collector's groups) rewrote hundreds of its 16 KiB leaves into the WAL, ten times the bytes of the events
-- themselves. Now a commit appends its entries to event_ids_fresh, in rowid order (one page per thousand
-- entries); once it holds about 32,768 entries they are moved into event_ids_recent in key order, one pass
-- over its leaves. The writer keeps the fresh entries in memory for its lookups, and reads them again when
-- another connection has committed (EventIDIndex.swift). An entry is in exactly one level, committed with
-- its event. Existing databases start with it empty.

CREATE TABLE event_ids_fresh (
    event INTEGER PRIMARY KEY, -- events.rowid
    key   INTEGER NOT NULL     -- alstats_id_key(events.id)
);

-- 0011_index_event_ids_by_key: dedup through an 8-byte integer key of each id, in two levels.
--
-- Until now dedup used the unique index `events_by_id` on the id itself (16-byte blobs for UUIDs, longer
-- text for other ids: about 25 bytes an entry, 250 MB at 10M events). A random id touched a random leaf of
-- it, and at 10M events that index is eight times the 32 MiB page cache: every commit rewrote most of it.
-- Now each id has a 64-bit key (`alstats_id_key(id)`, an SQL function registered by alstats on every
-- connection it opens: the first 48 bits of a UUID, so time-ordered UUIDv7 ids keep their order, and a
-- hash of the rest; a hash of the text for any other id), stored as (key, events.rowid) pairs:
--   event_ids_recent: the pairs of recent events, small enough to stay in the writer's page cache;
--   event_ids:        every older pair; the recent ones are moved into it in key order, in one sequential
--                     pass, once the recent level holds about a million entries (EventIDIndex.swift).
-- A lookup checks both levels, and two ids with one key are told apart by the id stored in `events`, so
-- dedup stays exact for all time. See docs/storage-layout.md for the numbers.
-- Existing events are indexed here in key order; events, rollups and completeness are untouched.

CREATE TABLE event_ids (
    key   INTEGER NOT NULL, -- alstats_id_key(events.id)
    event INTEGER NOT NULL, -- events.rowid
    PRIMARY KEY (key, event)
) WITHOUT ROWID;

CREATE TABLE event_ids_recent (
    key   INTEGER NOT NULL, -- alstats_id_key(events.id)
    event INTEGER NOT NULL, -- events.rowid
    PRIMARY KEY (key, event)
) WITHOUT ROWID;

INSERT INTO event_ids (key, event)
SELECT alstats_id_key(id) AS key, rowid AS event FROM events ORDER BY key, event;

DROP INDEX events_by_id;

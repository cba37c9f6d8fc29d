-- 0001_create_events: the raw events, partitioned by month of ts_ms, and the ids that keep them unique.
--
-- events has the columns of the SQLite store's events (Sources/EventStoreSQLite/Migrations/0001), with the same
-- meaning: catalogue fields in columns, every other field in `extra` (a JSON object of strings, keys sorted,
-- kept as text so an export gives back the bytes written), `success` 1 or 0. `id` is the id's text (the
-- canonical lowercase UUID, or the id as given). Text columns compare bytewise (COLLATE "C"), as SQLite does.
-- Partitions: events_YYYY_MM for [month start, next month start) in ms since the Unix epoch, created by the
-- writers as data arrives (PostgresEventStore, under an advisory lock); events_other (the default partition)
-- holds timestamps before 1900 or after 9999.
-- event_ids: one row per stored id, for all time. A unique constraint on a partitioned table must include
-- the partition key, so events itself cannot refuse a second event with the same id at another time; the
-- writers claim each id here (COPY, or INSERT ... ON CONFLICT DO NOTHING RETURNING id when one is stored) in the
-- same transaction as the event, and store only the events whose id they claimed (docs/postgres-layout.md).

CREATE TABLE events (
    id                 text   COLLATE "C" NOT NULL,
    ts_ms              bigint NOT NULL,
    name               text   COLLATE "C" NOT NULL,
    ref                text   COLLATE "C",
    success            bigint,
    type               text   COLLATE "C",
    referer_app_name   text   COLLATE "C",
    source_url_host    text   COLLATE "C",
    error              text   COLLATE "C",
    input_url          text   COLLATE "C",
    input_url_scheme   text   COLLATE "C",
    target_url         text   COLLATE "C",
    referer_url        text   COLLATE "C",
    source_application text   COLLATE "C",
    output_url         text   COLLATE "C",
    output_url_scheme  text   COLLATE "C",
    source_url         text   COLLATE "C",
    version            text   COLLATE "C",
    extra              text   COLLATE "C"
) PARTITION BY RANGE (ts_ms);

-- Serves export (in time order), the report's window edges and the views filtered by time.
CREATE INDEX events_by_time ON events (ts_ms, id);

CREATE TABLE events_other PARTITION OF events DEFAULT;

CREATE TABLE event_ids (
    id text COLLATE "C" NOT NULL PRIMARY KEY
);

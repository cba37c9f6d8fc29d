-- 0006_cluster_events_by_arrival: events stored in arrival order, with a compact separate index on id.
--
-- Until now `events` was WITHOUT ROWID, clustered by id: a random id (UUIDv4, or the hash of a line
-- without id) put each ~600-byte row on a random page of the whole table, so every batch rewrote pages
-- all over a growing file. Now rows are appended in rowid (arrival) order and dedup is exact for all time
-- through the unique index `events_by_id` (id only, 16 bytes for a UUID: ~25 bytes an entry, so the pages
-- a random id touches are few and stay in the writers' cache). See docs/storage-layout.md for the numbers.
-- Same columns and meanings as 0001; the views (0004) and rollups are unchanged. Existing events are copied
-- in time order. legacy_alter_table keeps SQLite from checking the views while `events` is briefly absent.

CREATE TABLE events_by_arrival (
    id                 BLOB    NOT NULL, -- 16 bytes of a canonical lowercase UUID, else the id's text
    ts_ms              INTEGER NOT NULL, -- milliseconds since the Unix epoch, UTC
    name               TEXT    NOT NULL, -- al_nav_in, al_nav_out, al_ref_back_out, or a host's own name
    ref                TEXT,             -- field ref
    success            INTEGER,          -- field success: 1 or 0
    type               TEXT,             -- field type: app, web, fail
    referer_app_name   TEXT,             -- field refererAppName
    source_url_host    TEXT,             -- field sourceURLHost
    error              TEXT,             -- field error
    input_url          TEXT,             -- field inputURL
    input_url_scheme   TEXT,             -- field inputURLScheme
    target_url         TEXT,             -- field targetURL
    referer_url        TEXT,             -- field refererURL
    source_application TEXT,             -- field sourceApplication
    output_url         TEXT,             -- field outputURL
    output_url_scheme  TEXT,             -- field outputURLScheme
    source_url         TEXT,             -- field sourceURL
    version            TEXT,             -- field version
    extra              TEXT              -- every other field: {"key":"value",...}, keys sorted; NULL when none
);

INSERT INTO events_by_arrival (
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra
)
SELECT
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra
FROM events
ORDER BY ts_ms, id;

PRAGMA legacy_alter_table = ON;
DROP TABLE events;
ALTER TABLE events_by_arrival RENAME TO events;
PRAGMA legacy_alter_table = OFF;

-- Dedup, for all time: one row per id (insert_event.sql's ON CONFLICT (id) target).
CREATE UNIQUE INDEX events_by_id ON events (id);
-- Serves export (--since/--until, in time order), the views filtered by time, and rebuilds.
CREATE INDEX events_by_time ON events (ts_ms);

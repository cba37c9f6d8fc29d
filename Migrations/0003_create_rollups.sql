-- 0003_create_rollups: event counts per 15-minute UTC bucket and report dimension.
--
-- Kept up to date in the same transaction as the events (only rows really inserted count, never a
-- duplicate id), so that a report reads O(groups), not O(events). Every real time-zone offset is a
-- multiple of 15 minutes, so daily series in any zone are sums of buckets. A NULL dimension means the
-- event lacked the field. Raw events stay the source of truth: SQLiteEventStore.rebuildRollups() recomputes
-- this table from them.
-- Columns: bucket_ms (bucket start, ms since the Unix epoch, a multiple of 900000), name, ref,
-- referer_app_name, type, success (1, 0 or NULL), source_url_host, error, count (events).

CREATE TABLE event_rollup (
    bucket_ms        INTEGER NOT NULL,
    name             TEXT    NOT NULL,
    ref              TEXT,
    referer_app_name TEXT,
    type             TEXT,
    success          INTEGER,
    source_url_host  TEXT,
    error            TEXT,
    count            INTEGER NOT NULL
);

-- One row per group; NULL is mapped to x'' (a blob equals no text) so that NULLs group together.
-- Also the upsert target of the writers, and serves time-window scans of the report.
CREATE UNIQUE INDEX event_rollup_group ON event_rollup (
    bucket_ms, name, ifnull(ref, x''), ifnull(referer_app_name, x''), ifnull(type, x''), ifnull(success, x''),
    ifnull(source_url_host, x''), ifnull(error, x'')
);

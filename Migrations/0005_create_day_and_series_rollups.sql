-- 0005_create_day_and_series_rollups: coarser rollups, so that a report stays O(groups) at any volume.
--
-- event_rollup (0003) has one row per 15-minute bucket and combination of the seven dimensions; at
-- millions of events most combinations occur in every bucket, and it grows towards one row per few
-- events. These two tables stay small:
--   event_rollup_day: the same dimensions per UTC day (day_ms: the day's start, a multiple of 86400000),
--     read by the report for the whole UTC days of its window;
--   event_rollup_series: per 15-minute bucket, only name, type and success, read for the daily series in
--     any time zone (every real offset is a multiple of 15 minutes).
-- The writers update both in the same transaction as the events, from the same groups as event_rollup;
-- SQLiteEventStore.rebuildRollups() recomputes all three from the raw events. Existing rollups are carried over.

CREATE TABLE event_rollup_day (
    day_ms           INTEGER NOT NULL,
    name             TEXT    NOT NULL,
    ref              TEXT,
    referer_app_name TEXT,
    type             TEXT,
    success          INTEGER,
    source_url_host  TEXT,
    error            TEXT,
    count            INTEGER NOT NULL
);

-- One row per group (NULL mapped to x'' so that NULLs group together); the writers' upsert target, and
-- the report's range scan over days.
CREATE UNIQUE INDEX event_rollup_day_group ON event_rollup_day (
    day_ms, name, ifnull(ref, x''), ifnull(referer_app_name, x''), ifnull(type, x''), ifnull(success, x''),
    ifnull(source_url_host, x''), ifnull(error, x'')
);

CREATE TABLE event_rollup_series (
    bucket_ms INTEGER NOT NULL,
    name      TEXT    NOT NULL,
    type      TEXT,
    success   INTEGER,
    count     INTEGER NOT NULL
);

-- One row per group; the upsert target and the daily series' range scan.
CREATE UNIQUE INDEX event_rollup_series_group ON event_rollup_series (
    bucket_ms, name, ifnull(type, x''), ifnull(success, x'')
);

INSERT INTO event_rollup_day (day_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, ref, referer_app_name, type, success,
    source_url_host, error, sum(count)
FROM event_rollup
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

INSERT INTO event_rollup_series (bucket_ms, name, type, success, count)
SELECT bucket_ms, name, type, success, sum(count)
FROM event_rollup
GROUP BY 1, 2, 3, 4;

-- rebuild_rollups: recomputes the three rollup tables from the raw events (the source of truth), with
-- the same grouping as the writers: event_rollup per 15-minute UTC bucket, event_rollup_day per UTC day,
-- event_rollup_series per bucket, name, type and success. No parameters. Run inside one transaction.
-- Used by: EventStore.rebuildRollups.
DELETE FROM event_rollup;
DELETE FROM event_rollup_day;
DELETE FROM event_rollup_series;
INSERT INTO event_rollup (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT
    ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, ref, referer_app_name, type, success, source_url_host,
    error, count(*)
FROM events
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO event_rollup_day (day_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT
    bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, ref, referer_app_name, type, success,
    source_url_host, error, sum(count)
FROM event_rollup
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO event_rollup_series (bucket_ms, name, type, success, count)
SELECT bucket_ms, name, type, success, sum(count)
FROM event_rollup
GROUP BY 1, 2, 3, 4;

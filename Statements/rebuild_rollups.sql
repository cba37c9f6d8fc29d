-- rebuild_rollups: recomputes event_rollup from the raw events (the source of truth), with the same
-- 15-minute UTC buckets and grouping as the writers. No parameters. Run inside one transaction.
-- Used by: EventStore.rebuildRollups.
DELETE FROM event_rollup;
INSERT INTO event_rollup (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT
    ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, ref, referer_app_name, type, success, source_url_host,
    error, count(*)
FROM events
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;

-- rebuild_rollups: recomputes the three rollup tables from the raw events (the source of truth), with
-- the same grouping as the writers: event_rollup per 15-minute UTC bucket, event_rollup_day per UTC day,
-- event_rollup_series per bucket, name, type and success, over every event but a device's loss record
-- (alstats_loss with a reason of 1 to 128 bytes and a count of 1 to 10^12 in decimal digits, as DeviceLoss reads
-- it: counted in completeness instead; an alstats_loss event without them is an ordinary event, as the writers
-- count it). Once the database was pruned (Migrations/0021), only from the retention horizon on: the rollups before
-- it keep the history of the raw events deleted (the horizon is the start of a UTC day, so no bucket or day
-- straddles it). No parameters. Run inside one transaction. Used by: SQLiteEventStore.rebuildRollups.
DELETE FROM event_rollup WHERE bucket_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
DELETE FROM event_rollup_day WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
DELETE FROM event_rollup_series
WHERE bucket_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
INSERT INTO event_rollup (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT
    ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, ref, referer_app_name, type, success, source_url_host,
    error, count(*)
FROM events
WHERE ts_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
  AND NOT CASE WHEN name = 'alstats_loss' THEN ifnull(
    length(CAST(json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.reason') AS BLOB)) BETWEEN 1 AND 128
    AND length(json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.count')) BETWEEN 1 AND 13
    AND json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.count') NOT GLOB '*[^0-9]*'
    AND CAST(json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.count') AS INTEGER) BETWEEN 1 AND 1000000000000, 0) ELSE 0 END
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO event_rollup_day (day_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT
    bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, ref, referer_app_name, type, success,
    source_url_host, error, sum(count)
FROM event_rollup
WHERE bucket_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO event_rollup_series (bucket_ms, name, type, success, count)
SELECT bucket_ms, name, type, success, sum(count)
FROM event_rollup
WHERE bucket_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY 1, 2, 3, 4;

-- rebuild_rollups: recomputes every rollup (the report's and the hosted links funnel's) from the raw events,
-- with the same grouping as the writers (a device's loss record in none: DeviceLoss's rules, as in the SQLite
-- store's rebuild_rollups.sql); once the database was pruned (Migrations/postgres/0012), only from the retention
-- horizon on: the rollups before it keep the history of the raw events deleted (the horizon is the start of a UTC
-- day, so no bucket or day straddles it). No parameters;
-- statements separated by ";" at line ends, run in one transaction. Used by: PostgresEventStore.rebuildRollups.
DELETE FROM event_rollup WHERE bucket_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
DELETE FROM event_rollup_day WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
DELETE FROM event_rollup_series
WHERE bucket_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
INSERT INTO event_rollup (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, ref, referer_app_name, type, success, source_url_host,
    error, count(*)
FROM events
WHERE ts_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
  AND NOT CASE WHEN name = 'alstats_loss' THEN coalesce(
    octet_length(extra::jsonb ->> 'reason') BETWEEN 1 AND 128
    AND CASE WHEN (extra::jsonb ->> 'count') ~ '^[0-9]{1,13}$'
        THEN (extra::jsonb ->> 'count')::bigint BETWEEN 1 AND 1000000000000 ELSE false END, false) ELSE false END
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO event_rollup_day (day_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, ref, referer_app_name, type, success,
    source_url_host, error, sum(count)
FROM event_rollup
WHERE bucket_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO event_rollup_series (bucket_ms, name, type, success, count)
SELECT bucket_ms, name, type, success, sum(count)
FROM event_rollup
WHERE bucket_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY 1, 2, 3, 4;
DELETE FROM link_rollup WHERE bucket_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
DELETE FROM link_rollup_day WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
DELETE FROM link_visitor_day WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
DELETE FROM link_visitor_count WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
INSERT INTO link_rollup (bucket_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, slug, origin, ref, referer_app_name, status, crawler,
    count(*)
FROM link_event
WHERE ts_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO link_rollup_day (day_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, slug, origin, ref, referer_app_name,
    status, crawler, sum(count)
FROM link_rollup
WHERE bucket_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO link_visitor_day (day_ms, slug, ref, referer_app_name, visitor)
SELECT DISTINCT ts_ms - ((ts_ms % 86400000) + 86400000) % 86400000, slug, ref, referer_app_name, visitor
FROM link_event
WHERE name = 'alstats_link_hit' AND status = 200 AND crawler = 0 AND visitor IS NOT NULL
  AND ts_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon);
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'all', NULL, NULL, count(DISTINCT visitor)
FROM link_visitor_day
WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY day_ms, slug;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'ref', ref, NULL, count(DISTINCT visitor)
FROM link_visitor_day
WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY day_ms, slug, ref;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'referer_app', NULL, referer_app_name, count(DISTINCT visitor)
FROM link_visitor_day
WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY day_ms, slug, referer_app_name;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'both', ref, referer_app_name, count(*)
FROM link_visitor_day
WHERE day_ms >= (SELECT coalesce(since_ms, -9223372036854775807) FROM retention_horizon)
GROUP BY day_ms, slug, ref, referer_app_name;

-- rebuild_link_rollups: recomputes link_rollup, link_rollup_day, link_visitor_day and link_visitor_count from
-- the raw events
-- (through the view link_event, Migrations/0009), with the same grouping as LinkRollupWriter; once the database was
-- pruned, only from the retention horizon on (Migrations/0021), as rebuild_rollups.sql. No parameters. Run inside
-- one transaction. Used by: SQLiteEventStore.rebuildRollups.
DELETE FROM link_rollup WHERE bucket_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
DELETE FROM link_rollup_day WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
DELETE FROM link_visitor_day WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
DELETE FROM link_visitor_count WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
INSERT INTO link_rollup (bucket_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT ts_ms - ((ts_ms % 900000) + 900000) % 900000, name, slug, origin, ref, referer_app_name, status, crawler,
    count(*)
FROM link_event
WHERE ts_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO link_rollup_day (day_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT bucket_ms - ((bucket_ms % 86400000) + 86400000) % 86400000, name, slug, origin, ref, referer_app_name,
    status, crawler, sum(count)
FROM link_rollup
WHERE bucket_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
INSERT INTO link_visitor_day (day_ms, slug, ref, referer_app_name, visitor)
SELECT DISTINCT ts_ms - ((ts_ms % 86400000) + 86400000) % 86400000, slug, ref, referer_app_name, visitor
FROM link_event
WHERE name = 'alstats_link_hit' AND status = 200 AND crawler = 0 AND visitor IS NOT NULL
  AND ts_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon);
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'all', NULL, NULL, count(DISTINCT visitor)
FROM link_visitor_day
WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY day_ms, slug;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'ref', ref, NULL, count(DISTINCT visitor)
FROM link_visitor_day
WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY day_ms, slug, ref;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'referer_app', NULL, referer_app_name, count(DISTINCT visitor)
FROM link_visitor_day
WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY day_ms, slug, referer_app_name;
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT day_ms, slug, 'both', ref, referer_app_name, count(*)
FROM link_visitor_day
WHERE day_ms >= (SELECT ifnull(since_ms, -9223372036854775808) FROM retention_horizon)
GROUP BY day_ms, slug, ref, referer_app_name;

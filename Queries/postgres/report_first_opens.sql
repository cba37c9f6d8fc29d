-- report_first_opens: the apps' first opens in a time window, attributed or organic; PostgreSQL's form of
-- report_first_opens.sql (same row), through the partial index events_install_path (Migrations/postgres/0010),
-- and those of pruned months from pruned_install_events (Migrations/postgres/0013: a prune keeps them there).
-- Parameters (NULL = no limit, each as text): :since (ms, inclusive), :until (ms, exclusive); :ref, :referer_app,
-- :source_host, :link (a first open has none of them: with any, every count is 0).
-- Columns: first_opens, attributed, organic. One row.
SELECT count(*)::bigint AS first_opens,
    count(*) FILTER (WHERE extra::json ->> 'attributed' = '1')::bigint AS attributed,
    count(*) FILTER (WHERE (extra::json ->> 'attributed') IS DISTINCT FROM '1')::bigint AS organic
FROM (
    SELECT name, ts_ms, extra FROM events
    UNION ALL
    SELECT name, ts_ms, extra FROM pruned_install_events
) AS e
WHERE name = 'alstats_first_open'
  AND ts_ms >= coalesce(:since::bigint, -9223372036854775807) AND ts_ms < coalesce(:until::bigint, 9223372036854775807)
  AND :ref::text IS NULL AND :referer_app::text IS NULL AND :source_host::text IS NULL AND :link::text IS NULL

-- slowest_growing_refs: which ref categories grow slowest: arrivals in the last 7 days against the 7 days before.
--
-- Parameters: :now (ms since the Unix epoch; unbound = the time of the latest event).
-- Columns: ref, previous_7_days, last_7_days, growth (last / previous - 1; NULL when there were none before).
WITH anchor AS (
    SELECT coalesce(CAST(:now AS BIGINT), (SELECT max(bucket_ms) + 900000 FROM event_rollup)) AS now_ms
),
counts AS (
    SELECT r.ref,
           sum(CASE WHEN r.bucket_ms >= a.now_ms - 14 * 86400000 AND r.bucket_ms < a.now_ms - 7 * 86400000 THEN r.count ELSE 0 END) AS previous_7_days,
           sum(CASE WHEN r.bucket_ms >= a.now_ms - 7 * 86400000 AND r.bucket_ms < a.now_ms THEN r.count ELSE 0 END) AS last_7_days
    FROM event_rollup AS r, anchor AS a
    WHERE r.name = 'al_nav_in' AND r.bucket_ms >= a.now_ms - 14 * 86400000 AND r.bucket_ms < a.now_ms
    GROUP BY r.ref
)
SELECT ref, previous_7_days, last_7_days, growth
FROM (
    SELECT ref, previous_7_days, last_7_days,
           round(1.0 * last_7_days / nullif(previous_7_days, 0) - 1, 4) AS growth
    FROM counts
) AS g
ORDER BY growth IS NULL, growth, ref IS NULL, ref;

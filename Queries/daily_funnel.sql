-- daily_funnel: per UTC day, people arriving by App Link, outbound navigations and how they ended, and returns to the referer.
--
-- Reads the rollups (15-minute buckets), so it is fast on any number of events; days are UTC (alstats
-- report --tz gives other zones).
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch; inclusive, exclusive;
--   whole buckets: a bound inside a bucket counts that bucket whole), :ref (only this ref).
-- Columns: day, arrivals, nav_out, nav_out_app, nav_out_web, nav_out_fail, nav_out_success_rate, returns.
SELECT
    strftime('%Y-%m-%d', bucket_ms / 1000, 'unixepoch') AS day,
    sum(CASE WHEN name = 'al_nav_in' THEN count ELSE 0 END) AS arrivals,
    sum(CASE WHEN name = 'al_nav_out' THEN count ELSE 0 END) AS nav_out,
    sum(CASE WHEN name = 'al_nav_out' AND type = 'app' THEN count ELSE 0 END) AS nav_out_app,
    sum(CASE WHEN name = 'al_nav_out' AND type = 'web' THEN count ELSE 0 END) AS nav_out_web,
    sum(CASE WHEN name = 'al_nav_out' AND type = 'fail' THEN count ELSE 0 END) AS nav_out_fail,
    round(1.0 * sum(CASE WHEN name = 'al_nav_out' AND success = 1 THEN count ELSE 0 END)
        / nullif(sum(CASE WHEN name = 'al_nav_out' THEN count ELSE 0 END), 0), 4) AS nav_out_success_rate,
    sum(CASE WHEN name = 'al_ref_back_out' THEN count ELSE 0 END) AS returns
FROM event_rollup
WHERE (:since IS NULL OR bucket_ms + 900000 > CAST(:since AS BIGINT))
  AND (:until IS NULL OR bucket_ms < CAST(:until AS BIGINT))
  AND (:ref IS NULL OR ref = :ref)
GROUP BY day
ORDER BY day;

-- daily_funnel: PostgreSQL's form of daily_funnel.sql (the same rows): only the day's text differs, as
-- PostgreSQL has no strftime. Parameters and columns as there; each parameter arrives as text.
SELECT
    to_char(to_timestamp(bucket_ms / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
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

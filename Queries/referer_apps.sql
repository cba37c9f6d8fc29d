-- referer_apps: which apps send people in by App Link (refererAppName of al_nav_in), their share, and how many go back to them.
--
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch, whole 15-minute buckets).
-- Columns: referer_app_name (NULL: links without a referer), arrivals, share, returns, return_rate.
WITH counts AS (
    SELECT referer_app_name,
           sum(CASE WHEN name = 'al_nav_in' THEN count ELSE 0 END) AS arrivals,
           sum(CASE WHEN name = 'al_ref_back_out' THEN count ELSE 0 END) AS returns
    FROM event_rollup
    WHERE name IN ('al_nav_in', 'al_ref_back_out')
      AND (:since IS NULL OR bucket_ms + 900000 > CAST(:since AS BIGINT))
      AND (:until IS NULL OR bucket_ms < CAST(:until AS BIGINT))
    GROUP BY referer_app_name
)
SELECT referer_app_name, arrivals,
       round(1.0 * arrivals / nullif((SELECT sum(arrivals) FROM counts), 0), 4) AS share,
       returns,
       round(1.0 * returns / nullif(arrivals, 0), 4) AS return_rate
FROM counts
ORDER BY arrivals DESC, referer_app_name IS NULL, referer_app_name;

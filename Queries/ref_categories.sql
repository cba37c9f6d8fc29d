-- ref_categories: how each ref category performs: arrivals, outbound attempts and their success, returns.
--
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch, whole 15-minute buckets).
-- Columns: ref (NULL: events without a ref), arrivals, nav_out_attempts, nav_out_succeeded, nav_out_success_rate, returns.
SELECT ref,
       sum(CASE WHEN name = 'al_nav_in' THEN count ELSE 0 END) AS arrivals,
       sum(CASE WHEN name = 'al_nav_out' THEN count ELSE 0 END) AS nav_out_attempts,
       sum(CASE WHEN name = 'al_nav_out' AND success = 1 THEN count ELSE 0 END) AS nav_out_succeeded,
       round(1.0 * sum(CASE WHEN name = 'al_nav_out' AND success = 1 THEN count ELSE 0 END)
           / nullif(sum(CASE WHEN name = 'al_nav_out' THEN count ELSE 0 END), 0), 4) AS nav_out_success_rate,
       sum(CASE WHEN name = 'al_ref_back_out' THEN count ELSE 0 END) AS returns
FROM event_rollup
WHERE name IN ('al_nav_in', 'al_nav_out', 'al_ref_back_out')
  AND (:since IS NULL OR bucket_ms + 900000 > CAST(:since AS BIGINT))
  AND (:until IS NULL OR bucket_ms < CAST(:until AS BIGINT))
GROUP BY ref
ORDER BY arrivals DESC, ref IS NULL, ref;

-- source_hosts: which pages' App Link metadata people navigate from (sourceURLHost of al_nav_out), and how often it works.
--
-- Parameters (unbound = no limit): :since, :until (ms since the Unix epoch, whole 15-minute buckets), :ref.
-- Columns: source_url_host, attempts, app, web, fail, success_rate.
SELECT source_url_host,
       sum(count) AS attempts,
       sum(CASE WHEN type = 'app' THEN count ELSE 0 END) AS app,
       sum(CASE WHEN type = 'web' THEN count ELSE 0 END) AS web,
       sum(CASE WHEN type = 'fail' THEN count ELSE 0 END) AS fail,
       round(1.0 * sum(CASE WHEN success = 1 THEN count ELSE 0 END) / sum(count), 4) AS success_rate
FROM event_rollup
WHERE name = 'al_nav_out'
  AND (:since IS NULL OR bucket_ms + 900000 > CAST(:since AS BIGINT))
  AND (:until IS NULL OR bucket_ms < CAST(:until AS BIGINT))
  AND (:ref IS NULL OR ref = :ref)
GROUP BY source_url_host
ORDER BY attempts DESC, source_url_host IS NULL, source_url_host;

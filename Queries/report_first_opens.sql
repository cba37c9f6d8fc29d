-- report_first_opens: the apps' first opens in a time window, attributed to a hosted link's click or organic (docs/install.md); the installs of alstats report.
--
-- Reads only the alstats_first_open events, through the partial index events_install_path (Migrations/0017).
-- Parameters (unbound = no limit):
--   :since        window start, ms since the Unix epoch, inclusive
--   :until        window end, ms since the Unix epoch, exclusive
--   :ref, :referer_app, :source_host, :link   a first open has no ref, referer app, source host or link: with any
--                 of them, every count is 0
-- Columns: first_opens (alstats_first_open events); attributed (those with attributed "1": the app opened on the
--   link a person clicked before installing it); organic (the others). One row.
SELECT count(*) AS first_opens,
    coalesce(sum(json_extract(extra, '$.attributed') = '1'), 0) AS attributed,
    coalesce(sum(json_extract(extra, '$.attributed') IS NOT '1'), 0) AS organic
FROM events
WHERE name = 'alstats_first_open'
  AND ts_ms >= coalesce(:since, -9223372036854775807) AND ts_ms < coalesce(:until, 9223372036854775807)
  AND :ref IS NULL AND :referer_app IS NULL AND :source_host IS NULL AND :link IS NULL;

-- 0004_create_views: the stable SQL interface of shared/spec/cli.md, readable with plain sqlite3.
--
-- nav_in, nav_out, ref_back_out: one row per event of that name, with id (text: the canonical UUID
-- or the id as given), ts_ms (ms since the Unix epoch, UTC), occurred_at (RFC 3339 UTC text with
-- milliseconds), ref, and one snake_case column per field of events.md (success as integer 1/0).
-- event_field(event_id, key, value): every field of every event, under its events.md name.
-- Example: SELECT type, count(*) FROM nav_out WHERE occurred_at >= '2025-11-01' GROUP BY type;

CREATE VIEW nav_in AS
SELECT
    CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS id,
    e.ts_ms,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.ts_ms / 1000.0, 'unixepoch') AS occurred_at,
    e.ref,
    e.input_url,
    e.input_url_scheme,
    e.target_url,
    e.referer_url,
    e.referer_app_name,
    e.source_application,
    e.version
FROM events AS e
WHERE e.name = 'al_nav_in';

CREATE VIEW nav_out AS
SELECT
    CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS id,
    e.ts_ms,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.ts_ms / 1000.0, 'unixepoch') AS occurred_at,
    e.ref,
    e.output_url,
    e.output_url_scheme,
    e.source_url,
    e.source_url_host,
    e.success,
    e.type,
    e.version,
    e.error
FROM events AS e
WHERE e.name = 'al_nav_out';

CREATE VIEW ref_back_out AS
SELECT
    CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS id,
    e.ts_ms,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.ts_ms / 1000.0, 'unixepoch') AS occurred_at,
    e.ref,
    e.output_url,
    e.output_url_scheme,
    e.source_url,
    e.source_url_host,
    e.success,
    e.type,
    e.version,
    e.error,
    e.referer_app_name
FROM events AS e
WHERE e.name = 'al_ref_back_out';

CREATE VIEW event_field AS
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'ref' AS key, e.ref AS value FROM events AS e WHERE e.ref IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'success' AS key, CAST(e.success AS TEXT) AS value FROM events AS e WHERE e.success IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'type' AS key, e.type AS value FROM events AS e WHERE e.type IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'refererAppName' AS key, e.referer_app_name AS value FROM events AS e WHERE e.referer_app_name IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'sourceURLHost' AS key, e.source_url_host AS value FROM events AS e WHERE e.source_url_host IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'error' AS key, e.error AS value FROM events AS e WHERE e.error IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'inputURL' AS key, e.input_url AS value FROM events AS e WHERE e.input_url IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'inputURLScheme' AS key, e.input_url_scheme AS value FROM events AS e WHERE e.input_url_scheme IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'targetURL' AS key, e.target_url AS value FROM events AS e WHERE e.target_url IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'refererURL' AS key, e.referer_url AS value FROM events AS e WHERE e.referer_url IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'sourceApplication' AS key, e.source_application AS value FROM events AS e WHERE e.source_application IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'outputURL' AS key, e.output_url AS value FROM events AS e WHERE e.output_url IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'outputURLScheme' AS key, e.output_url_scheme AS value FROM events AS e WHERE e.output_url_scheme IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'sourceURL' AS key, e.source_url AS value FROM events AS e WHERE e.source_url IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'version' AS key, e.version AS value FROM events AS e WHERE e.version IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, f.key AS key, f.value AS value FROM events AS e, json_each(e.extra) AS f WHERE e.extra IS NOT NULL;

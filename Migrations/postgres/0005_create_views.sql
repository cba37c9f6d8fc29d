-- 0005_create_views: the stable SQL interface of shared/spec/cli.md, as the SQLite store's (its 0004):
-- nav_in, nav_out, ref_back_out (one row per event of that name, with id, ts_ms, occurred_at as RFC 3339 UTC
-- text with milliseconds, ref and one column per field) and event_field(event_id, key, value).

CREATE VIEW nav_in AS
SELECT e.id, e.ts_ms,
    to_char(to_timestamp(e.ts_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
    e.ref, e.input_url, e.input_url_scheme, e.target_url, e.referer_url, e.referer_app_name, e.source_application,
    e.version
FROM events AS e
WHERE e.name = 'al_nav_in';

CREATE VIEW nav_out AS
SELECT e.id, e.ts_ms,
    to_char(to_timestamp(e.ts_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
    e.ref, e.output_url, e.output_url_scheme, e.source_url, e.source_url_host, e.success, e.type, e.version, e.error
FROM events AS e
WHERE e.name = 'al_nav_out';

CREATE VIEW ref_back_out AS
SELECT e.id, e.ts_ms,
    to_char(to_timestamp(e.ts_ms / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS occurred_at,
    e.ref, e.output_url, e.output_url_scheme, e.source_url, e.source_url_host, e.success, e.type, e.version, e.error,
    e.referer_app_name
FROM events AS e
WHERE e.name = 'al_ref_back_out';

CREATE VIEW event_field AS
SELECT e.id AS event_id, f.key COLLATE "C" AS key, f.value COLLATE "C" AS value
FROM events AS e
CROSS JOIN LATERAL (
    VALUES ('ref', e.ref), ('success', e.success::text), ('type', e.type), ('refererAppName', e.referer_app_name),
        ('sourceURLHost', e.source_url_host), ('error', e.error), ('inputURL', e.input_url),
        ('inputURLScheme', e.input_url_scheme), ('targetURL', e.target_url), ('refererURL', e.referer_url),
        ('sourceApplication', e.source_application), ('outputURL', e.output_url),
        ('outputURLScheme', e.output_url_scheme), ('sourceURL', e.source_url), ('version', e.version)
) AS f (key, value)
WHERE f.value IS NOT NULL
UNION ALL
SELECT e.id, f.key COLLATE "C", f.value COLLATE "C"
FROM events AS e, jsonb_each_text(e.extra::jsonb) AS f
WHERE e.extra IS NOT NULL;

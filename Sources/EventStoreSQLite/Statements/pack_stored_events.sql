-- pack_stored_events: readies a database for packing (Migrations/0016_pack_event_fields.sql): trains its first
-- dictionary on its latest 4,096 events and defines the views of 0004 and 0009 again to read packed rows through
-- alstats_field; nothing at all when it holds fewer events, or has a dictionary already. pack_unpacked_events
-- then packs its rows.
-- No parameters. Run inside a transaction. Used by: EventWriter, once a store opened to pack
-- (SQLiteEventStore.Options.packFields) holds EventPacker.trainingThreshold events.
INSERT INTO event_pack_dictionaries (id, dictionary, samples, created_ms)
SELECT alstats_pack_dictionary_id(dictionary), dictionary, samples,
    CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)
FROM (
    SELECT alstats_pack_train(payload) AS dictionary, count(*) AS samples -- the aggregate skips NULL payloads
    FROM (
        SELECT alstats_pack_payload(input_url, target_url, referer_url, output_url, source_url, extra) AS payload
        FROM events
        ORDER BY rowid DESC
        LIMIT 4096
    )
)
WHERE samples >= 4096 AND dictionary IS NOT NULL AND NOT EXISTS (SELECT 1 FROM event_pack_dictionaries);

-- The views of 0004 and 0009 again, reading a packed row's fields through alstats_field. (When no dictionary
-- was trained above, the writer rolls these back with the rest: see EventWriter.packStoredEvents.)
DROP VIEW nav_in;
DROP VIEW nav_out;
DROP VIEW ref_back_out;
DROP VIEW event_field;
DROP VIEW link_event;

CREATE VIEW nav_in AS
SELECT
    CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS id,
    e.ts_ms,
    strftime('%Y-%m-%dT%H:%M:%fZ', e.ts_ms / 1000.0, 'unixepoch') AS occurred_at,
    e.ref,
    coalesce(e.input_url, alstats_field(e.packed, 'input_url')) AS input_url,
    e.input_url_scheme,
    coalesce(e.target_url, alstats_field(e.packed, 'target_url')) AS target_url,
    coalesce(e.referer_url, alstats_field(e.packed, 'referer_url')) AS referer_url,
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
    coalesce(e.output_url, alstats_field(e.packed, 'output_url')) AS output_url,
    e.output_url_scheme,
    coalesce(e.source_url, alstats_field(e.packed, 'source_url')) AS source_url,
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
    coalesce(e.output_url, alstats_field(e.packed, 'output_url')) AS output_url,
    e.output_url_scheme,
    coalesce(e.source_url, alstats_field(e.packed, 'source_url')) AS source_url,
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
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'inputURL' AS key, coalesce(e.input_url, alstats_field(e.packed, 'input_url')) AS value FROM events AS e WHERE coalesce(e.input_url, alstats_field(e.packed, 'input_url')) IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'inputURLScheme' AS key, e.input_url_scheme AS value FROM events AS e WHERE e.input_url_scheme IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'targetURL' AS key, coalesce(e.target_url, alstats_field(e.packed, 'target_url')) AS value FROM events AS e WHERE coalesce(e.target_url, alstats_field(e.packed, 'target_url')) IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'refererURL' AS key, coalesce(e.referer_url, alstats_field(e.packed, 'referer_url')) AS value FROM events AS e WHERE coalesce(e.referer_url, alstats_field(e.packed, 'referer_url')) IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'sourceApplication' AS key, e.source_application AS value FROM events AS e WHERE e.source_application IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'outputURL' AS key, coalesce(e.output_url, alstats_field(e.packed, 'output_url')) AS value FROM events AS e WHERE coalesce(e.output_url, alstats_field(e.packed, 'output_url')) IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'outputURLScheme' AS key, e.output_url_scheme AS value FROM events AS e WHERE e.output_url_scheme IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'sourceURL' AS key, coalesce(e.source_url, alstats_field(e.packed, 'source_url')) AS value FROM events AS e WHERE coalesce(e.source_url, alstats_field(e.packed, 'source_url')) IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, 'version' AS key, e.version AS value FROM events AS e WHERE e.version IS NOT NULL
UNION ALL
SELECT CASE WHEN typeof(e.id) = 'blob' THEN lower(substr(hex(e.id), 1, 8) || '-' || substr(hex(e.id), 9, 4) || '-' || substr(hex(e.id), 13, 4) || '-' || substr(hex(e.id), 17, 4) || '-' || substr(hex(e.id), 21)) ELSE e.id END AS event_id, f.key AS key, f.value AS value FROM events AS e, json_each(coalesce(e.extra, alstats_field(e.packed, 'extra'))) AS f WHERE coalesce(e.extra, alstats_field(e.packed, 'extra')) IS NOT NULL;

CREATE VIEW link_event AS
SELECT id, ts_ms, name, slug, NULL AS origin, ref, referer_app_name,
    CASE WHEN status_text GLOB '[0-9]*' AND status_text NOT GLOB '*[^0-9]*' AND length(status_text) <= 9
        THEN CAST(status_text AS INTEGER) END AS status,
    CASE WHEN crawler_text = '1' THEN 1 ELSE 0 END AS crawler,
    visitor
FROM (
    SELECT id, ts_ms, name, ref, referer_app_name, json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.slug') AS slug,
        json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.status') AS status_text, json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.crawler') AS crawler_text,
        json_extract(coalesce(extra, alstats_field(packed, 'extra')), '$.visitor') AS visitor
    FROM events
    WHERE name = 'alstats_link_hit'
)
WHERE slug IS NOT NULL
UNION ALL
SELECT id, ts_ms, name, slug, origin, ref, referer_app_name, NULL, NULL, NULL
FROM (
    SELECT id, ts_ms, name, ref, referer_app_name, scheme || '://' || authority AS origin,
        CASE WHEN cut > 0 THEN substr(tail, 1, cut - 1) ELSE tail END AS slug
    FROM (
        SELECT id, ts_ms, name, ref, referer_app_name, scheme, authority, tail,
            CASE WHEN instr(tail, '?') = 0 THEN instr(tail, '#')
                 WHEN instr(tail, '#') = 0 THEN instr(tail, '?')
                 ELSE min(instr(tail, '?'), instr(tail, '#')) END AS cut
        FROM (
            SELECT id, ts_ms, name, ref, referer_app_name, scheme,
                substr(rest, 1, instr(rest, '/') - 1) AS authority,
                substr(rest, instr(rest, '/'), 3) AS lead, substr(rest, instr(rest, '/') + 3) AS tail
            FROM (
                SELECT id, ts_ms, name, ref, referer_app_name,
                    substr(target_url, 1, instr(target_url, '://') - 1) AS scheme,
                    substr(target_url, instr(target_url, '://') + 3) AS rest
                FROM (
                    SELECT id, ts_ms, name, ref, referer_app_name, coalesce(target_url, alstats_field(packed, 'target_url')) AS target_url
                    FROM events
                    WHERE name = 'al_nav_in'
                )
                WHERE instr(target_url, '://') > 1
            )
            WHERE instr(rest, '/') > 1
        )
        WHERE lead = '/l/' AND authority NOT GLOB '*[?#]*' AND scheme NOT GLOB '*[^A-Za-z0-9+.-]*'
    )
)
WHERE length(slug) BETWEEN 1 AND 64 AND slug NOT GLOB '*[^A-Za-z0-9_-]*';

-- select_events: the stored events with ?1 <= ts_ms < ?2, in time order (served by events_by_time).
-- Parameters: ?1 since (ms, inclusive), ?2 until (ms, exclusive).
-- Columns: as insert_event's, in the same order, but the payload of `packed` (alstats_unpack) for `packed`. Used by: export.
SELECT
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra,
    alstats_unpack(packed)
FROM events
WHERE ts_ms >= ?1 AND ts_ms < ?2
ORDER BY ts_ms, id

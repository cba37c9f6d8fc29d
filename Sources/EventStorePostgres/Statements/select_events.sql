-- select_events: the stored events with $1 <= ts_ms < $2, in the SQLite store's export order: time, then
-- ids that are not canonical UUIDs (SQLite keeps them as text) before UUIDs (kept there as 16 bytes), each
-- bytewise. Parameters: $1 since (ms, inclusive), $2 until (ms, exclusive).
-- Columns: as the writers' COPY (PostgresWritePlan.columns), in the same order. Used by: PostgresEventStore.forEachEvent.
SELECT
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra
FROM events
WHERE ts_ms >= $1::bigint AND ts_ms < $2::bigint
ORDER BY ts_ms, id ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', id

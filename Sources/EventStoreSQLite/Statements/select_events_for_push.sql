-- select_events_for_push: up to ?2 stored events that arrived after rowid ?1, in arrival (rowid) order, in the
-- columns `alstats push` (EventUpload's PushSource) writes their NDJSON lines from without making the events.
-- Parameters: ?1 rowid (exclusive), ?2 limit.
-- Columns: the id as stored (a UUID as its 16 bytes), ts_ms, name, the field columns in
-- EventColumns.fields' order, extra, rowid, the
-- payload of `packed` (alstats_unpack: a packed row's long fields, whose columns are NULL).
SELECT
    id, ts_ms, name,
    ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme, target_url,
    referer_url, source_application, output_url, output_url_scheme, source_url, version, extra, rowid,
    alstats_unpack(packed)
FROM events
WHERE rowid > ?1
ORDER BY rowid
LIMIT ?2

-- select_events_after: up to ?2 stored events that arrived after rowid ?1, in arrival (rowid) order.
-- Parameters: ?1 rowid (exclusive), ?2 limit.
-- Columns: as insert_event's but `packed`, in the same order, then the rowid, then the payload of `packed`
-- (alstats_unpack). Used by: `alstats push` (EventUpload).
SELECT
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra, rowid,
    alstats_unpack(packed)
FROM events
WHERE rowid > ?1
ORDER BY rowid
LIMIT ?2

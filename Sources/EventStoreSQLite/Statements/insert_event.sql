-- insert_event: stores one event. The writer has already checked its id against the id index
-- (select_event_id.sql) and indexes the new row (insert_event_id.sql) with its rowid.
-- Parameters: ?1 id (16-byte blob for a UUID, else text), ?2 ts_ms, ?3 name, ?4..?18 the field columns
-- in this order (NULL when absent; success as 1/0), ?19 extra (JSON object of the other fields, or NULL), ?20 packed (EventPacker: ?10, ?12, ?13, ?15, ?17 and
-- ?19 packed into one value, those then NULL; or NULL).
-- Used by: EventWriter (SQLiteEventSink, ingest, SQLiteEventStore.write).
INSERT INTO events (
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra,
    packed
) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)

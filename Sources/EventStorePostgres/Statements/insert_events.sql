-- insert_events: stores a batch of events (ids already claimed in event_ids), one array per column.
-- Parameters: $1 id, $2 ts_ms, $3 name, $4..$18 the field columns in EventColumns.fields order (ref, success,
-- type, referer_app_name, source_url_host, error, input_url, input_url_scheme, target_url, referer_url,
-- source_application, output_url, output_url_scheme, source_url, version), $19 extra; NULL where absent.
-- Used by: PostgresEventStore.writeBatches.
INSERT INTO events (
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra
)
SELECT * FROM unnest(
    $1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
    $18::text[], $19::text[]
)

-- upsert_rollup: adds a batch's counts to event_rollup, one row per group (groups distinct, sorted).
-- Parameters: $1 bucket_ms, $2 name, $3 ref, $4 referer_app_name, $5 type, $6 success, $7 source_url_host,
-- $8 error, $9 count. Used by: PostgresEventStore.writeBatches.
INSERT INTO event_rollup AS t (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
SELECT * FROM unnest(
    $1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[], $8::text[], $9::bigint[]
)
ON CONFLICT (bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error)
DO UPDATE SET count = t.count + excluded.count

-- upsert_rollup_series: adds a batch's counts to event_rollup_series, one row per group (distinct, sorted).
-- Parameters: $1 bucket_ms, $2 name, $3 type, $4 success, $5 count. Used by: PostgresEventStore.writeBatches.
INSERT INTO event_rollup_series AS t (bucket_ms, name, type, success, count)
SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
ON CONFLICT (bucket_ms, name, type, success)
DO UPDATE SET count = t.count + excluded.count

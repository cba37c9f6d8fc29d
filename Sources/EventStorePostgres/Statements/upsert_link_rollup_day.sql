-- upsert_link_rollup_day: adds a batch's counts to link_rollup_day (per UTC day), one row per group (distinct, sorted).
-- Parameters: $1 day_ms, $2 name, $3 slug, $4 origin, $5 ref, $6 referer_app_name, $7 status, $8 crawler,
-- $9 count. Used by: PostgresEventStore.writeBatches.
INSERT INTO link_rollup_day AS t (day_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
SELECT * FROM unnest(
    $1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::bigint[], $9::bigint[]
)
ON CONFLICT (day_ms, name, slug, origin, ref, referer_app_name, status, crawler)
DO UPDATE SET count = t.count + excluded.count

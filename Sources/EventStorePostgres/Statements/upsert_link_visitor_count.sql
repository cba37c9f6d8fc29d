-- upsert_link_visitor_count: adds new distinct visitors to link_visitor_count, one row per group.
-- Parameters: $1 day_ms, $2 slug, $3 scope, $4 ref, $5 referer_app_name, $6 visitors.
-- Used by: PostgresEventStore.writeBatches.
INSERT INTO link_visitor_count AS t (day_ms, slug, scope, ref, referer_app_name, visitors)
SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[])
ON CONFLICT (day_ms, slug, scope, ref, referer_app_name)
DO UPDATE SET visitors = t.visitors + excluded.visitors

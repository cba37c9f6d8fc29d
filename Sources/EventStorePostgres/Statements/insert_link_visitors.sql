-- insert_link_visitors: records people's page views per UTC day, slug, ref, referer app and visitor; a row
-- already there changes nothing. Parameters: $1 day_ms, $2 slug, $3 ref, $4 referer_app_name, $5 visitor.
-- Used by: PostgresEventStore.writeBatches.
INSERT INTO link_visitor_day (day_ms, slug, ref, referer_app_name, visitor)
SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])
ON CONFLICT DO NOTHING

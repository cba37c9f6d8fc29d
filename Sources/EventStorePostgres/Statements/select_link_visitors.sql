-- select_link_visitors: the rows of link_visitor_day already stored for these days, slugs and visitors.
-- Parameters: $1 day_ms, $2 slug, $3 visitor (one array element per visitor looked up).
-- Columns: day_ms, slug, visitor, ref, referer_app_name. Used by: PostgresEventStore.writeBatches.
SELECT v.day_ms, v.slug, v.visitor, v.ref, v.referer_app_name
FROM link_visitor_day AS v
JOIN (SELECT DISTINCT * FROM unnest($1::bigint[], $2::text[], $3::text[]) AS k (day_ms, slug, visitor)) AS k
    ON v.day_ms = k.day_ms AND v.slug = k.slug AND v.visitor = k.visitor

-- upsert_link_visitor_count: adds ?6 visitors to one group of link_visitor_count (created when new).
-- Parameters: ?1 day_ms, ?2 slug, ?3 scope ('all', 'ref', 'referer_app', 'both'), ?4 ref, ?5 referer_app_name
-- (NULL where the scope does not group by them), ?6 visitors. Used by: LinkRollupWriter.commit.
INSERT INTO link_visitor_count (day_ms, slug, scope, ref, referer_app_name, visitors)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (day_ms, slug, scope, ifnull(ref, x''), ifnull(referer_app_name, x''))
DO UPDATE SET visitors = visitors + excluded.visitors

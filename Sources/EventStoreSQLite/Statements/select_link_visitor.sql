-- select_link_visitor: the refs and referer apps under which a visitor already viewed a link's page on a
-- UTC day (a few rows): the writer counts the visitor anew in each scope of link_visitor_count where no
-- row matches. Parameters: ?1 day_ms, ?2 slug, ?3 visitor. Columns: ref, referer_app_name.
-- Used by: LinkRollupWriter.commit.
SELECT ref, referer_app_name FROM link_visitor_day WHERE day_ms = ?1 AND slug = ?2 AND visitor = ?3

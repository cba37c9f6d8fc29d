-- insert_link_visitor: records that `visitor` viewed a link's page on a UTC day (nothing when already
-- recorded). Run once per distinct row per committed batch, in the batch's transaction.
-- Parameters: ?1 day_ms, ?2 slug, ?3 ref, ?4 referer_app_name (NULL when absent), ?5 visitor.
-- Used by: LinkRollupWriter.commit.
INSERT INTO link_visitor_day (day_ms, slug, ref, referer_app_name, visitor)
VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (day_ms, slug, ifnull(ref, x''), ifnull(referer_app_name, x''), visitor) DO NOTHING

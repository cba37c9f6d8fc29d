-- insert_link_visitor: records that `visitor` viewed a link's page on a UTC day with a ref and referer app
-- (nothing when already recorded). Run, in the batch's transaction, for each distinct row of a committed
-- batch after select_link_visitor told the writer which visitor counts grow.
-- Parameters: ?1 day_ms, ?2 slug, ?3 ref, ?4 referer_app_name (NULL when absent), ?5 visitor.
-- Used by: LinkRollupWriter.commit.
INSERT INTO link_visitor_day (day_ms, slug, ref, referer_app_name, visitor)
VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (day_ms, slug, visitor, ifnull(ref, x''), ifnull(referer_app_name, x'')) DO NOTHING

-- upsert_link_rollup_day: adds ?9 events to one group of link_rollup_day (created when new). Run once per group per
-- committed batch, in the batch's transaction.
-- Parameters: ?1 day_ms, ?2 name, ?3 slug, ?4 origin, ?5 ref, ?6 referer_app_name, ?7 status, ?8 crawler
-- (NULL where absent), ?9 count. Used by: LinkRollupWriter.commit.
INSERT INTO link_rollup_day (day_ms, name, slug, origin, ref, referer_app_name, status, crawler, count)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
ON CONFLICT (
    day_ms, name, slug, ifnull(origin, x''), ifnull(ref, x''), ifnull(referer_app_name, x''),
    ifnull(status, x''), ifnull(crawler, x'')
)
DO UPDATE SET count = count + excluded.count

-- upsert_rollup_day: adds ?9 events to one group of event_rollup_day (created when new): the same dimensions
-- as event_rollup, per UTC day. Run once per day group per committed batch, in the batch's transaction, with
-- the sums of that batch's 15-minute groups. Parameters: ?1 day_ms (the UTC day's start), ?2 name, ?3 ref,
-- ?4 referer_app_name, ?5 type, ?6 success, ?7 source_url_host, ?8 error (NULL when the events lack the
-- field), ?9 count. Returns the row's rowid (EventWriter counts a group met again by it: RollupRows). Used
-- by: EventWriter.commit.
INSERT INTO event_rollup_day (day_ms, name, ref, referer_app_name, type, success, source_url_host, error, count)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
ON CONFLICT (
    day_ms, name, ifnull(ref, x''), ifnull(referer_app_name, x''), ifnull(type, x''), ifnull(success, x''),
    ifnull(source_url_host, x''), ifnull(error, x'')
)
DO UPDATE SET count = count + excluded.count
RETURNING rowid

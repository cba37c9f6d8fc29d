-- upsert_rollup_series: adds ?5 events to one group of event_rollup_series (created when new): a 15-minute
-- UTC bucket, an event name, its type and success. Run once per series group per committed batch, in the
-- batch's transaction, with the sums of that batch's 15-minute groups. Parameters: ?1 bucket_ms, ?2 name, ?3
-- type, ?4 success (NULL when the events lack the field), ?5 count. Returns the row's rowid (EventWriter
-- counts a group met again by it: RollupRows). Used by: EventWriter.commit.
INSERT INTO event_rollup_series (bucket_ms, name, type, success, count) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (bucket_ms, name, ifnull(type, x''), ifnull(success, x''))
DO UPDATE SET count = count + excluded.count
RETURNING rowid

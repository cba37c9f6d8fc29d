-- count_events_between: how many stored events have a rowid in (?1, ?2]: the events `alstats push` has left
-- to send after a cursor (EventUpload's PushSource).
-- Parameters: ?1 rowid (exclusive), ?2 rowid (inclusive).
-- Columns: count.
SELECT count(*) FROM events WHERE rowid > ?1 AND rowid <= ?2

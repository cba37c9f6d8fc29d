-- raise_rowid_epoch: a prune's batch deleted the event with the greatest rowid, so SQLite may give its rowid to the
-- next event: raising the epoch tells every writer to forget the rowids it holds in memory of the id index
-- (RetentionHorizon.swift). lower_moved_event_ids.sql follows it.
-- Parameters: none.
-- Used by: SQLitePrune, in the batch's transaction.
UPDATE retention_horizon SET rowid_epoch = rowid_epoch + 1 WHERE singleton = 1

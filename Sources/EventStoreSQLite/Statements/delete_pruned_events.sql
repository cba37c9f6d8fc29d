-- delete_pruned_events: deletes the raw events of one batch of temp.prune_events (collect_pruned_events.sql), a
-- range of their rowids; their entries in events_by_time go with them.
-- Parameters: ?1 the last rowid of the batch before (exclusive), ?2 the last rowid of this batch (inclusive).
-- Used by: SQLitePrune, one transaction a batch.
DELETE FROM events WHERE rowid IN (SELECT event FROM temp.prune_events WHERE event > ?1 AND event <= ?2)

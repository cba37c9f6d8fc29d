-- lower_moved_event_ids: after a prune's batch deleted the events with the greatest rowids, lowers the end of the
-- id index's moved events (event_ids_moved, Migrations/0014) to the greatest rowid left, so that an event given a
-- freed rowid lies in the fresh level, not between the levels. Every event above it was deleted with its entries.
-- Parameters: ?1 the greatest rowid of events now (0 when none is left).
-- Used by: SQLitePrune, in the batch's transaction (after raise_rowid_epoch.sql).
UPDATE event_ids_moved SET through_event = ?1 WHERE through_event > ?1

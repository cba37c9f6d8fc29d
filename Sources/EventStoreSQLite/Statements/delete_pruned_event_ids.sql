-- delete_pruned_event_ids: deletes the entries of the id index's large level (event_ids, Migrations/0011) of one
-- batch of temp.prune_events, a range in key order: one pass over the level's leaves in key order, however random
-- the ids. delete_pruned_recent_event_ids.sql does the same in the recent level; the fresh level is the events
-- after event_ids_moved (Migrations/0014), which goes with them.
-- Parameters: ?1, ?2 the last (key, event) of the batch before (exclusive); ?3, ?4 the last of this batch
-- (inclusive).
-- Used by: SQLitePrune, in the batch's transaction.
DELETE FROM event_ids WHERE (key, event) IN (
    SELECT key, event FROM temp.prune_events WHERE (key, event) > (?1, ?2) AND (key, event) <= (?3, ?4))

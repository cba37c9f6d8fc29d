-- delete_pruned_recent_event_ids: delete_pruned_event_ids.sql for the id index's recent level (event_ids_recent).
-- Parameters: ?1, ?2 the last (key, event) of the batch before (exclusive); ?3, ?4 the last of this batch
-- (inclusive).
-- Used by: SQLitePrune, in the batch's transaction.
DELETE FROM event_ids_recent WHERE (key, event) IN (
    SELECT key, event FROM temp.prune_events WHERE (key, event) > (?1, ?2) AND (key, event) <= (?3, ?4))

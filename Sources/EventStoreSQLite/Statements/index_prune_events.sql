-- index_prune_events: indexes temp.prune_events by id key once it is filled (one sort, not an insert per event
-- into a tree by key), for delete_pruned_event_ids.sql's walk in key order.
-- Parameters: none.
-- Used by: SQLitePrune.
CREATE INDEX temp.prune_events_by_key ON prune_events (key, event)

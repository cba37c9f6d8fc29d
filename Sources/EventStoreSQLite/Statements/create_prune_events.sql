-- create_prune_events: the prune's own temporary table of the events it deletes (collect_pruned_events.sql): by
-- rowid, and (once filled: index_prune_events.sql) by id key. In the connection's temporary database: nothing
-- another connection sees, and gone with the connection.
-- Parameters: none.
-- Used by: SQLitePrune.
CREATE TEMP TABLE IF NOT EXISTS prune_events (
    event INTEGER PRIMARY KEY, -- events.rowid
    key   INTEGER NOT NULL     -- alstats_id_key(events.id)
);
DELETE FROM temp.prune_events;
DROP INDEX IF EXISTS temp.prune_events_by_key

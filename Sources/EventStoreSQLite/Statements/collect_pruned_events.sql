-- collect_pruned_events: notes the raw events before the horizon, with their ids' keys, in the prune's own
-- temporary table temp.prune_events (event INTEGER PRIMARY KEY, key INTEGER): what the prune deletes, by rowid
-- and then by key. Reads events through events_by_time; writes only the connection's temporary database.
-- Parameters: ?1 the horizon (ms since the Unix epoch).
-- Used by: SQLitePrune.
INSERT INTO temp.prune_events (event, key)
SELECT rowid, alstats_id_key(id) FROM events WHERE ts_ms < ?1

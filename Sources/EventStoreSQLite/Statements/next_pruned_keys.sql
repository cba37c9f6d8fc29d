-- next_pruned_keys: the next batch of the id index entries a prune deletes, in key order (temp.prune_events,
-- collect_pruned_events.sql, through its index by key): its last (key, event) and its size; no row when none is
-- left.
-- Parameters: ?1, ?2 the last (key, event) of the batch before (exclusive), ?3 the batch size.
-- Columns: key, event (the batch's last entry), size.
-- Used by: SQLitePrune.
SELECT key, event, n FROM (
    SELECT key, event, row_number() OVER (ORDER BY key, event) AS n
    FROM temp.prune_events WHERE (key, event) > (?1, ?2) ORDER BY key, event LIMIT ?3)
ORDER BY n DESC LIMIT 1

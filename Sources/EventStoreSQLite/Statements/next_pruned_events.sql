-- next_pruned_events: the next batch of the events a prune deletes, in rowid order (temp.prune_events,
-- collect_pruned_events.sql): its last rowid and its size; no row when none is left.
-- Parameters: ?1 the last rowid of the batch before (exclusive), ?2 the batch size.
-- Columns: event (the batch's last rowid), size.
-- Used by: SQLitePrune.
SELECT event, n FROM (
    SELECT event, row_number() OVER (ORDER BY event) AS n
    FROM temp.prune_events WHERE event > ?1 ORDER BY event LIMIT ?2)
ORDER BY n DESC LIMIT 1

-- raise_retention_horizon: raises the retention horizon to a prune's cut-off; a horizon already past it stays.
-- Parameters: ?1 the cut-off (ms since the Unix epoch, the start of a UTC day), ?2 now (ms).
-- Used by: SQLitePrune, in a transaction of its own before anything is deleted.
UPDATE retention_horizon SET since_ms = ?1, pruned_ms = ?2
WHERE singleton = 1 AND (since_ms IS NULL OR since_ms < ?1)

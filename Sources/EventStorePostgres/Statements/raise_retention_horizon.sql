-- raise_retention_horizon: raises the retention horizon to a prune's cut-off (never lowers it), in a transaction of
-- its own before anything is deleted; it waits for every write transaction under way (lock_retention_horizon.sql),
-- at most the prune's lock_timeout.
-- Parameters: $1 the cut-off (ms since the Unix epoch, the start of a UTC day), $2 now (ms).
-- Columns: since_ms, the horizon now. Used by: PostgresEventStore.prune.
UPDATE retention_horizon SET since_ms = greatest(coalesce(since_ms, $1), $1),
    pruned_ms = CASE WHEN since_ms IS NULL OR since_ms < $1 THEN $2 ELSE pruned_ms END
WHERE singleton
RETURNING since_ms

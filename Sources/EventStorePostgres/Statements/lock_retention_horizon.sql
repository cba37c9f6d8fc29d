-- lock_retention_horizon: the retention horizon (Migrations/postgres/0012), read and locked FOR SHARE by every write
-- transaction before it claims ids: the write then refuses the events before it (counted as before_retention),
-- and a prune raising it (raise_retention_horizon.sql) waits for the write to end. A write that waited for a prune
-- reads the horizon the prune committed (READ COMMITTED rereads a row it waited for), so no write claims the id of
-- an event the prune deletes.
-- Parameters: none.
-- Columns: since_ms (NULL when never pruned). Used by: PostgresEventStore's writes.
SELECT since_ms FROM retention_horizon WHERE singleton FOR SHARE

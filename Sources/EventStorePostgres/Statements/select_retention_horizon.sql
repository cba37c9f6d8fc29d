-- select_retention_horizon: the retention horizon (Migrations/postgres/0012): raw events before it are deleted and
-- refused.
-- Parameters: none.
-- Columns: since_ms (NULL when never pruned). Used by: PostgresEventStore.rawEventsSince, the report.
SELECT since_ms FROM retention_horizon WHERE singleton

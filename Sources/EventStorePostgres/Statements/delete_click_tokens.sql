-- delete_click_tokens: deletes the click tokens minted before a time, claimed or not, with their install ids: the
-- end of their claim window (Migrations/postgres/0010_create_click_tokens.sql).
-- Parameters: $1 the cutoff, ms since the Unix epoch (rows with minted_ms before it go).
-- Columns: deleted, how many rows went. Used by: PostgresEventStore.deleteClicks.
WITH gone AS (DELETE FROM click_tokens WHERE minted_ms < $1 RETURNING 1)
SELECT count(*) AS deleted FROM gone

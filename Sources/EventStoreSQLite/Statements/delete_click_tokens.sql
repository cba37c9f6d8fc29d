-- delete_click_tokens: deletes the click tokens minted before a time, claimed or not, with their install ids: the
-- end of their claim window (Migrations/0019_create_click_tokens.sql).
-- Parameters: ?1 the cutoff, ms since the Unix epoch (rows with minted_ms before it go).
-- Used by: SQLiteEventStore.deleteClicks.
DELETE FROM click_tokens WHERE minted_ms < ?1

-- claim_click_token: claims a click token for an install, only when nobody has claimed it and it was minted within
-- the claim window: one UPDATE whose condition SQLite checks while it holds the write lock, so that of several claims
-- of one token exactly one changes the row (Migrations/0019_create_click_tokens.sql).
-- Parameters: ?1 token, ?2 install, ?3 platform, ?4 claimed_ms, ?5 install_event, ?6 the window's start (minted_ms
-- at or after it).
-- Columns (one row when this claim won, none otherwise): slug, minted_ms, query.
-- Run inside a transaction. Used by: SQLiteEventStore.claimClick.
UPDATE click_tokens
SET install = ?2, platform = ?3, claimed_ms = ?4, install_event = ?5
WHERE token = ?1 AND install IS NULL AND minted_ms >= ?6
RETURNING slug, minted_ms, query

-- insert_click_token: stores one minted click token (Migrations/0019_create_click_tokens.sql); a token already
-- stored is kept as it is.
-- Parameters: ?1 token, ?2 slug, ?3 minted_ms, ?4 query (the passed values, '' when none).
-- Run inside a transaction, once per token. Used by: SQLiteEventStore.recordClicks.
INSERT INTO click_tokens (token, slug, minted_ms, query) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (token) DO NOTHING

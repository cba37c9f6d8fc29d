-- claim_click_token: claims a click token for an install, only when nobody has claimed it and it was minted within
-- the claim window (Migrations/postgres/0010_create_click_tokens.sql). Under READ COMMITTED a second claim of the
-- same token waits for the first one's row lock, then checks `install IS NULL` again on the row the first one
-- committed, and changes nothing: of several collectors claiming one token at once, exactly one wins.
-- Parameters: $1 token, $2 install, $3 platform, $4 claimed_ms, $5 install_event, $6 the window's start.
-- Columns (one row when this claim won, none otherwise): slug, minted_ms, query.
-- Used by: PostgresEventStore.claimClick.
UPDATE click_tokens
SET install = $2, platform = $3, claimed_ms = $4, install_event = $5
WHERE token = $1 AND install IS NULL AND minted_ms >= $6
RETURNING slug, minted_ms, query

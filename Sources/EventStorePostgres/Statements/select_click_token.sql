-- select_click_token: one click token and its claim, if any (Migrations/postgres/0010_create_click_tokens.sql).
-- Parameters: $1 token.
-- Columns: slug, minted_ms, query, install, platform, claimed_ms, install_event (the last four NULL until claimed).
-- Used by: PostgresEventStore.click(token:) and claimClick (what a claim that changed nothing found).
SELECT slug, minted_ms, query, install, platform, claimed_ms, install_event
FROM click_tokens
WHERE token = $1

-- insert_click_tokens: stores minted click tokens (Migrations/postgres/0010_create_click_tokens.sql), one row per
-- element of the arrays; a token already stored is kept as it is.
-- Parameters: $1 tokens (text[]), $2 slugs (text[]), $3 minted_ms (bigint[]), $4 queries (text[]), of one length.
-- Used by: PostgresEventStore.recordClicks.
INSERT INTO click_tokens (token, slug, minted_ms, query)
SELECT token, slug, minted_ms, query
FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[]) AS u (token, slug, minted_ms, query)
ON CONFLICT (token) DO NOTHING

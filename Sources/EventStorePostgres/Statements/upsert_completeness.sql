-- upsert_completeness: adds loss counts to completeness, one row per kind and reason.
-- Parameters: $1 kind, $2 reason, $3 count, $4 updated_ms (now). Used by: PostgresEventStore.
INSERT INTO completeness AS t (kind, reason, count, updated_ms)
SELECT k, r, c, $4::bigint FROM unnest($1::text[], $2::text[], $3::bigint[]) AS u (k, r, c)
ON CONFLICT (kind, reason) DO UPDATE SET count = t.count + excluded.count, updated_ms = excluded.updated_ms

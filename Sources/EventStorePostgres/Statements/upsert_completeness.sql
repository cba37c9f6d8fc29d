-- upsert_completeness: adds loss counts to completeness, one row per kind, reason and UTC day.
-- Parameters: $1 kind, $2 reason, $3 day_ms (the start of the UTC day of each loss), $4 count (arrays of one length),
--   $5 updated_ms (now). Used by: PostgresEventStore.
INSERT INTO completeness AS t (kind, reason, day_ms, count, updated_ms)
SELECT k, r, d, c, $5::bigint FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS u (k, r, d, c)
ON CONFLICT (kind, reason, day_ms) DO UPDATE SET count = t.count + excluded.count, updated_ms = excluded.updated_ms

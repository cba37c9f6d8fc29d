-- restore_completeness: puts back the rows of a backup (alstats restore): each row's count, or the stored one when
-- it is larger, so that restoring a backup twice counts nothing twice.
-- Parameters: $1 kind, $2 reason, $3 day_ms, $4 count (arrays of one length, one entry per row), $5 now (ms).
-- Used by: PostgresEventStore.restoreCompleteness.
INSERT INTO completeness AS t (kind, reason, day_ms, count, updated_ms)
SELECT k, r, d, c, $5::bigint FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[]) AS u (k, r, d, c)
ON CONFLICT (kind, reason, day_ms) DO UPDATE SET count = excluded.count, updated_ms = excluded.updated_ms
WHERE excluded.count > t.count

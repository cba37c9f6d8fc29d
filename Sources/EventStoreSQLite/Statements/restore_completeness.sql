-- restore_completeness: puts back one row of a backup (alstats restore): the row's count, or the stored one when
-- it is larger, so that restoring a backup twice counts nothing twice.
-- Parameters: ?1 kind, ?2 reason, ?3 day_ms, ?4 count, ?5 now (ms).
-- Used by: SQLiteEventStore.restoreCompleteness.
INSERT INTO completeness (kind, reason, day_ms, count, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (kind, reason, day_ms) DO UPDATE SET count = max(count, excluded.count), updated_ms = excluded.updated_ms
WHERE excluded.count > count

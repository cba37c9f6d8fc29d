-- upsert_completeness: adds ?4 lost events under a kind and reason of the completeness table, on one UTC day.
-- Parameters: ?1 kind ('dropped', 'rejected' or 'altered'), ?2 reason (a DropReason name), ?3 day_ms (the start of
--   the UTC day of the loss), ?4 count, ?5 now (ms).
-- Used by: EventWriter.recordLosses (SQLiteEventSink.recordLosses, SQLiteEventStore.recordLosses).
INSERT INTO completeness (kind, reason, day_ms, count, updated_ms) VALUES (?1, ?2, ?3, ?4, ?5)
ON CONFLICT (kind, reason, day_ms) DO UPDATE SET count = count + excluded.count, updated_ms = excluded.updated_ms

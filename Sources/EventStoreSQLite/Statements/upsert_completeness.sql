-- upsert_completeness: adds ?3 lost events under a kind and reason of the completeness table.
-- Parameters: ?1 kind ('dropped' or 'rejected'), ?2 reason (a DropReason name), ?3 count, ?4 now (ms).
-- Used by: EventWriter.recordLosses (SQLiteEventSink.recordLosses, SQLiteEventStore.recordLosses).
INSERT INTO completeness (kind, reason, count, updated_ms) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (kind, reason) DO UPDATE SET count = count + excluded.count, updated_ms = excluded.updated_ms

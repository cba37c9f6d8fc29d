-- upsert_upload_completeness: adds ?3 events the device lost under a kind and reason of upload_completeness.
-- Parameters: ?1 kind ('dropped', 'rejected' or 'altered'), ?2 reason (a DropReason name), ?3 count, ?4 now (ms).
-- Used by: UploadDatabase.countInCompleteness (the outbox's commits, the uploader's receipts).
INSERT INTO upload_completeness (kind, reason, count, updated_ms) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (kind, reason) DO UPDATE SET count = count + excluded.count, updated_ms = excluded.updated_ms

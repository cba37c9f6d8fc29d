-- delete_outbox_lines: removes the rows of a seq range (answered by a receipt, or the oldest of a full outbox).
-- Parameters: ?1 the seq before the range (exclusive), ?2 its last seq (inclusive).
-- Columns: bytes of each row really deleted, which the caller subtracts from upload_outbox_size (a range
-- another process deleted first subtracts nothing).
DELETE FROM upload_outbox WHERE seq > ?1 AND seq <= ?2 RETURNING bytes

-- resize_outbox: adds to the outbox's totals what a statement inserted, or subtracts what it deleted.
-- Parameters: ?1 events, ?2 bytes (both negative for a delete).
-- Columns: bytes, the new byte total (the update is done by the first step).
UPDATE upload_outbox_size SET events = events + ?1, bytes = bytes + ?2 WHERE one = 1 RETURNING bytes

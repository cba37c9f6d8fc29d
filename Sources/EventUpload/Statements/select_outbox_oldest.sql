-- select_outbox_oldest: the outbox's rows after a seq, oldest first, for dropping the oldest of a full outbox.
-- Parameters: ?1 the seq after which rows may be dropped (those of the batches read for sending are kept).
-- Columns: seq, bytes.
SELECT seq, bytes FROM upload_outbox WHERE seq > ?1 ORDER BY seq

-- select_loss_records: the next loss records to send at the head of a batch, oldest first.
-- Parameters: ?1 the id after which to read (the largest of the batch before, or 0), ?2 the most rows.
-- Columns: id (sent under the batch key -id), line.
SELECT id, line FROM upload_loss_records WHERE id > ?1 ORDER BY id LIMIT ?2

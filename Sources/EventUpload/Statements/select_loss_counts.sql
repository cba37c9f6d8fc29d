-- select_loss_counts: the losses not yet turned into records, by reason.
-- Columns: reason, count.
SELECT reason, count FROM upload_loss_counts ORDER BY reason

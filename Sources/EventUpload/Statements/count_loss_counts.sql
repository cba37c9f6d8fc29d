-- count_loss_counts: how many reasons have losses not yet turned into records (0: nothing to convert).
-- Columns: count.
SELECT count(*) FROM upload_loss_counts

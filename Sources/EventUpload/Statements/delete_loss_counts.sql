-- delete_loss_counts: forgets the counts, in the transaction that turned them into records.
DELETE FROM upload_loss_counts

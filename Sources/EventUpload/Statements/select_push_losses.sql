-- select_push_losses: the lines a collector's receipts rejected over every push of this database.
-- Parameters: ?1 the collector URL.
-- Columns: reason, count.
SELECT reason, count FROM push_losses WHERE destination = ?1

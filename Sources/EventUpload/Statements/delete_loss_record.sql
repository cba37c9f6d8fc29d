-- delete_loss_record: removes a loss record a receipt answered.
-- Parameters: ?1 its id.
DELETE FROM upload_loss_records WHERE id = ?1

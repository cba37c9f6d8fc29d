-- insert_loss_record: a loss record to send, an alstats_loss event with an id of its own.
-- Parameters: ?1 the event's NDJSON line, without newline.
INSERT INTO upload_loss_records (line) VALUES (?1)

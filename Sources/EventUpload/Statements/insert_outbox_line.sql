-- insert_outbox_line: one committed event's line into the outbox (the lines a 64-row insert leaves over).
-- Parameters: ?1 the NDJSON line without newline, ?2 its bytes plus one for the newline.
-- The caller adds the line to upload_outbox_size (resize_outbox) in the same transaction.
INSERT INTO upload_outbox (line, bytes) VALUES (?1, ?2)

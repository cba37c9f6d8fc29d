-- select_outbox_lines: the next lines to send, oldest first.
-- Parameters: ?1 the seq after which to read (the last of the batch before, or 0), ?2 the most rows.
-- Columns: seq, line.
SELECT seq, line FROM upload_outbox WHERE seq > ?1 ORDER BY seq LIMIT ?2

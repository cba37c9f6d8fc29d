-- select_outbox_size: how many events the outbox holds (the pending count of the uploader's status).
-- Columns: events.
SELECT events FROM upload_outbox_size

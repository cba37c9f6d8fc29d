-- 0015_count_upload_outbox_per_statement: upload_outbox_size kept by the outbox's own statements, not by
-- a trigger per row.
--
-- The triggers of 0010 ran an UPDATE of the size row for every line inserted and every line deleted: two
-- more statements per event on the device, for the sink's inserts and the uploader's deletes alike. The
-- outbox (Sources/EventUpload/UploadOutbox.swift) now adds what it inserted, and subtracts what it deleted,
-- with one UPDATE per statement in the same transaction: the sink's commit adds its lines' count and
-- bytes; a delete after a receipt, and the eviction of a full outbox, subtract the count and bytes of the
-- rows the DELETE really removed (read back with RETURNING, so a range another process already deleted
-- subtracts nothing). Measured with `alstats-bench upload`, four alternated pairs: the device's CPU about a
-- tenth lower at the median, its system time a quarter to two fifths lower.
--
-- The totals stay exact for every writer that goes through UploadOutbox. Anyone deleting outbox rows by
-- hand must adjust upload_outbox_size in the same transaction, or set it again from the rows:
--   UPDATE upload_outbox_size SET events = (SELECT count(*) FROM upload_outbox),
--       bytes = (SELECT coalesce(sum(bytes), 0) FROM upload_outbox) WHERE one = 1;

DROP TRIGGER upload_outbox_added;
DROP TRIGGER upload_outbox_removed;

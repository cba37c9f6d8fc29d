-- 0002_drop_upload_outbox_triggers: no per-row triggers on upload_outbox, on a file of any release.
--
-- The store's migration 0010 made two triggers that kept upload_outbox_size row by row; its migration 0015
-- dropped them, and the outbox's own statements keep the totals since (Sources/EventUpload/UploadOutbox.swift).
-- The uploader used to open its file as an alstats store, so an outbox written at the store's schema 10 to 14
-- got 0015 then. It opens the file with its own schema only now: this migration drops the triggers where they
-- are still there, so that a line is never counted twice. The totals they kept stay exact and are kept.
-- On a file without them (a new outbox, or one at the store's schema 15) it changes nothing.

DROP TRIGGER IF EXISTS upload_outbox_added;
DROP TRIGGER IF EXISTS upload_outbox_removed;

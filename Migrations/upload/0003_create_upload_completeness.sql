-- 0003_create_upload_completeness: the device's own completeness, in a table of the uploader's.
--
-- An HTTPEventSink counts what its device lost (the bus's drops, outbox_full, lines dropped without a receipt,
-- lines a receipt rejected) so that `alstats report` on the outbox file shows it. Until this migration it added
-- them to the store's `completeness` table, which the outbox file had because the uploader opened it as an
-- alstats store. The uploader knows no store now: it counts them here, with completeness's columns, and the
-- store's report reads this table beside its own when the file has it (both counts added, by kind and reason).
-- Counts already in `completeness` stay there and are still reported; nothing is moved, so nothing is counted
-- twice. Same kinds as completeness: 'dropped', 'rejected', 'altered'. Counts only grow.

CREATE TABLE upload_completeness (
    kind       TEXT    NOT NULL CHECK (kind IN ('dropped', 'rejected', 'altered')),
    reason     TEXT    NOT NULL,     -- a DropReason name: outbox_full, buffer_full, upload_rejected:REASON, ...
    count      INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,     -- when the count last grew, ms since the Unix epoch
    PRIMARY KEY (kind, reason)
) WITHOUT ROWID;

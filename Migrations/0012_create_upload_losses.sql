-- 0011_create_upload_losses: the device's losses on their way to the collector (shared/spec/upload.md).
--
-- An HTTPEventSink counts what its device lost (the bus's drops, outbox_full) in completeness and, in the
-- same transaction, adds it to upload_loss_counts. When the uploader reads its next batch it turns the
-- counts into upload_loss_records, one per reason, in one transaction: each the NDJSON line of an
-- alstats_loss event with a random id of its own (MeasurementEvents' DeviceLoss). A record is sent at the
-- head of a batch, with the same id however often it is resent, and deleted when a receipt answers it; the
-- outbox's byte bound never drops one (there is at most one per reason and conversion).

CREATE TABLE upload_loss_counts (
    reason TEXT    NOT NULL PRIMARY KEY, -- a DropReason name
    count  INTEGER NOT NULL              -- events lost and not yet in a record
) WITHOUT ROWID;

CREATE TABLE upload_loss_records (
    id   INTEGER PRIMARY KEY AUTOINCREMENT, -- conversion order; sent as the batch key -id
    line TEXT    NOT NULL                   -- the alstats_loss event's NDJSON line, without newline
);

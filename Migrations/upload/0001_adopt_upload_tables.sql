-- 0001_adopt_upload_tables: the uploader's outbox, device losses and push cursor, as tables of its own.
--
-- EventUpload applies the migrations of Migrations/upload/ itself, when it opens its database, and records
-- them in upload_schema_migrations (SQLiteEventStore keeps PRAGMA user_version and schema_migrations for its own).
-- Until this migration these tables came with SQLiteEventStore's schema: its released migrations 0010, 0012 and
-- 0015 made them, and stay as they are. So every table here is created only when missing, with the columns
-- those migrations gave it, and the size row only when there is none: on a database SQLiteEventStore already made,
-- this migration changes nothing and every row is kept; on a new file it makes the tables as those
-- migrations left them (no per-row triggers, 0015: the outbox's own statements keep upload_outbox_size).
--
-- upload_outbox: the NDJSON lines of the events an HTTPEventSink committed and no receipt answered yet,
-- oldest first (docs/upload.md). AUTOINCREMENT: a seq is never reused, so deleting an acknowledged range
-- never touches a newer event. upload_outbox_size: their count and bytes, so the bound needs no scan.
-- upload_loss_counts, upload_loss_records: the device's losses on their way to the collector
-- (docs/design/device-losses.md). push_cursor, push_losses: per collector URL, the rowid of the newest
-- event of `events` a receipt answered, and the lines receipts rejected (`alstats push`).

CREATE TABLE IF NOT EXISTS upload_outbox (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT, -- post order
    line  TEXT    NOT NULL,                  -- the event's NDJSON line, without newline
    bytes INTEGER NOT NULL                   -- length(line) in bytes, plus one for the newline
);

CREATE TABLE IF NOT EXISTS upload_outbox_size (
    one    INTEGER PRIMARY KEY CHECK (one = 1),
    events INTEGER NOT NULL,                 -- rows of upload_outbox
    bytes  INTEGER NOT NULL                  -- sum of upload_outbox.bytes
);
INSERT OR IGNORE INTO upload_outbox_size (one, events, bytes) VALUES (1, 0, 0);

CREATE TABLE IF NOT EXISTS upload_loss_counts (
    reason TEXT    NOT NULL PRIMARY KEY, -- a DropReason name
    count  INTEGER NOT NULL              -- events lost and not yet in a record
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS upload_loss_records (
    id   INTEGER PRIMARY KEY AUTOINCREMENT, -- conversion order; sent as the batch key -id
    line TEXT    NOT NULL                   -- the alstats_loss event's NDJSON line, without newline
);

CREATE TABLE IF NOT EXISTS push_cursor (
    destination TEXT    NOT NULL PRIMARY KEY, -- the collector URL given to --to
    last_rowid  INTEGER NOT NULL,             -- events.rowid of the newest event answered by a receipt
    updated_ms  INTEGER NOT NULL              -- ms since the Unix epoch
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS push_losses (
    destination TEXT    NOT NULL,             -- the collector URL
    reason      TEXT    NOT NULL,             -- upload_rejected:REASON
    count       INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (destination, reason)
) WITHOUT ROWID;

-- 0010_create_upload_outbox: the uploader's outbox, and the cursor and losses of `alstats push`.
--
-- upload_outbox holds the events an HTTPEventSink (EventUpload) committed and no collector has
-- acknowledged yet, as their NDJSON lines (shared/spec/events.md), oldest first. A row is deleted only
-- when a receipt acknowledged it (accepted or duplicate), when the receipt rejected it (counted in
-- completeness as upload_rejected:REASON), or when the outbox is over its byte bound (oldest first,
-- counted as outbox_full). AUTOINCREMENT: a seq is never reused, so deleting an acknowledged range never
-- touches a newer event. upload_outbox_size keeps the totals up to date through the two triggers, so the
-- bound is checked without a scan.
--
-- push_cursor holds, per collector URL, the rowid of the newest event of `events` whose batch a receipt
-- answered: `alstats push` sends the events after it, in rowid (arrival) order, and never an earlier one.
-- push_losses counts, per collector URL, the events a receipt rejected (upload_rejected:REASON); they stay
-- in `events`, so they are not losses of this store's completeness.

CREATE TABLE upload_outbox (
    seq   INTEGER PRIMARY KEY AUTOINCREMENT, -- post order
    line  TEXT    NOT NULL,                  -- the event's NDJSON line, without newline
    bytes INTEGER NOT NULL                   -- length(line) in bytes, plus one for the newline
);

CREATE TABLE upload_outbox_size (
    one    INTEGER PRIMARY KEY CHECK (one = 1),
    events INTEGER NOT NULL,                 -- rows of upload_outbox
    bytes  INTEGER NOT NULL                  -- sum of upload_outbox.bytes
);
INSERT INTO upload_outbox_size (one, events, bytes) VALUES (1, 0, 0);

CREATE TRIGGER upload_outbox_added AFTER INSERT ON upload_outbox BEGIN
    UPDATE upload_outbox_size SET events = events + 1, bytes = bytes + NEW.bytes WHERE one = 1;
END;

CREATE TRIGGER upload_outbox_removed AFTER DELETE ON upload_outbox BEGIN
    UPDATE upload_outbox_size SET events = events - 1, bytes = bytes - OLD.bytes WHERE one = 1;
END;

CREATE TABLE push_cursor (
    destination TEXT    NOT NULL PRIMARY KEY, -- the collector URL given to --to
    last_rowid  INTEGER NOT NULL,             -- events.rowid of the newest event answered by a receipt
    updated_ms  INTEGER NOT NULL              -- ms since the Unix epoch
) WITHOUT ROWID;

CREATE TABLE push_losses (
    destination TEXT    NOT NULL,             -- the collector URL
    reason      TEXT    NOT NULL,             -- upload_rejected:REASON
    count       INTEGER NOT NULL,
    updated_ms  INTEGER NOT NULL,
    PRIMARY KEY (destination, reason)
) WITHOUT ROWID;

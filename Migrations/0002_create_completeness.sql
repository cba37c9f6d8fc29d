-- 0002_create_completeness: how many events never reached the database, by reason.
--
-- kind 'dropped': lost after acceptance (a full buffer, a failed write: buffer_full, sink_error);
-- kind 'rejected': refused by the bus before delivery (too_many_fields, key_too_long, too_deep,
-- empty_name, bus_closed, interceptor, ...). Reasons are the DropReason names. Counts only grow.
-- Written by: SQLiteEventSink.recordLosses. Read by: the report's completeness section.

CREATE TABLE completeness (
    kind       TEXT    NOT NULL CHECK (kind IN ('dropped', 'rejected')),
    reason     TEXT    NOT NULL,
    count      INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,     -- when the count last grew, ms since the Unix epoch
    PRIMARY KEY (kind, reason)
) WITHOUT ROWID;

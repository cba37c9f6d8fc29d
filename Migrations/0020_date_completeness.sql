-- 0020_date_completeness: each loss is counted on the UTC day it happened, so that a report shows the losses of its
-- own window (docs/sql.md, "completeness").
--
-- day_ms joins the key: the start of the UTC day (ms since the Unix epoch) of the loss. A line refused on receipt,
-- an event a sink could not write, a value cut or redacted whole: the day the store counted it (the time it
-- received the line). A device's loss record (`alstats_loss`): the day of the record's own time. The report adds
-- the days that begin in its window.
-- The counts kept before this migration have no day: they move whole to the UTC day this migration runs on.
-- SQLite cannot change a primary key in place, so the table is rebuilt with its rows (as 0007 did).

CREATE TABLE completeness_by_day (
    kind       TEXT    NOT NULL CHECK (kind IN ('dropped', 'rejected', 'altered')),
    reason     TEXT    NOT NULL,
    day_ms     INTEGER NOT NULL,     -- the start of the UTC day the events were lost on, ms since the Unix epoch
    count      INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,     -- when the count last grew, ms since the Unix epoch
    PRIMARY KEY (kind, reason, day_ms)
) WITHOUT ROWID;

INSERT INTO completeness_by_day (kind, reason, day_ms, count, updated_ms)
SELECT kind, reason, CAST(strftime('%s', 'now') AS INTEGER) / 86400 * 86400000, count, updated_ms FROM completeness;

DROP TABLE completeness;
ALTER TABLE completeness_by_day RENAME TO completeness;

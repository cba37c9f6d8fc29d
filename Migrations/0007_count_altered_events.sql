-- 0007_count_altered_events: completeness also counts events that were stored, but altered beyond the
-- documented rules, under kind 'altered':
--   value_truncated    one or more values were cut to the length limit (64 KiB by default) and end with the
--                      truncation marker; counted once per event, by the sink (from the bus) and by ingest;
--   redacted_unparsed  a value was replaced whole by REDACTED: a secret key stayed visible in text that
--                      could not be parsed (Redactor's last stage).
-- Ingest now also counts the lines it refuses over a limit under kind 'rejected' (too_many_fields,
-- key_too_long, too_deep). SQLite cannot change a CHECK constraint in place, so the table is rebuilt with
-- its rows (same columns as 0002).

CREATE TABLE completeness_by_kind (
    kind       TEXT    NOT NULL CHECK (kind IN ('dropped', 'rejected', 'altered')),
    reason     TEXT    NOT NULL,
    count      INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,     -- when the count last grew, ms since the Unix epoch
    PRIMARY KEY (kind, reason)
) WITHOUT ROWID;

INSERT INTO completeness_by_kind (kind, reason, count, updated_ms)
SELECT kind, reason, count, updated_ms FROM completeness;

DROP TABLE completeness;
ALTER TABLE completeness_by_kind RENAME TO completeness;

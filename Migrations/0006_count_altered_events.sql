-- 0006_count_altered_events: completeness also counts events stored altered, not only those lost.
--
-- kind 'altered': the event was stored, but a value was changed beyond the documented rules: a value
-- replaced whole by REDACTED because a secret key stayed visible in text that did not parse
-- (reason redacted_unparsed). SQLite cannot change a CHECK constraint in place, so the table is
-- rebuilt with its rows.

CREATE TABLE completeness_0006 (
    kind       TEXT    NOT NULL CHECK (kind IN ('dropped', 'rejected', 'altered')),
    reason     TEXT    NOT NULL,
    count      INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,     -- when the count last grew, ms since the Unix epoch
    PRIMARY KEY (kind, reason)
) WITHOUT ROWID;

INSERT INTO completeness_0006 (kind, reason, count, updated_ms)
SELECT kind, reason, count, updated_ms FROM completeness;

DROP TABLE completeness;

ALTER TABLE completeness_0006 RENAME TO completeness;

-- 0007_count_truncated_events: completeness also counts events stored with a value cut to the length limit.
--
-- kind 'truncated' (reason value_truncated): the event was stored, but one or more of its values were cut
-- to the limit (64 KiB by default) and end with the truncation marker; counted once per event, by the
-- sink (from the bus) and by ingest. Ingest now also counts the lines it refuses over a limit under kind
-- 'rejected' (too_many_fields, key_too_long, too_deep). Same columns as 0002; existing counts are kept.

CREATE TABLE completeness_by_kind (
    kind       TEXT    NOT NULL CHECK (kind IN ('dropped', 'rejected', 'truncated')),
    reason     TEXT    NOT NULL,
    count      INTEGER NOT NULL,
    updated_ms INTEGER NOT NULL,     -- when the count last grew, ms since the Unix epoch
    PRIMARY KEY (kind, reason)
) WITHOUT ROWID;

INSERT INTO completeness_by_kind (kind, reason, count, updated_ms)
SELECT kind, reason, count, updated_ms FROM completeness;

DROP TABLE completeness;
ALTER TABLE completeness_by_kind RENAME TO completeness;

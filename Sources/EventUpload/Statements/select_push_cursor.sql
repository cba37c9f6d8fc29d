-- select_push_cursor: the rowid of the newest event of `events` a collector's receipt answered.
-- Parameters: ?1 the collector URL.
-- Columns: last_rowid (no row: nothing answered yet).
SELECT last_rowid FROM push_cursor WHERE destination = ?1

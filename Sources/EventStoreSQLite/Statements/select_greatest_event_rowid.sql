-- select_greatest_event_rowid: the greatest rowid of events (0 when there is none): SQLite gives the next event
-- the one after it, so a prune that lowers it frees rowids (raise_rowid_epoch.sql).
-- Parameters: none.
-- Columns: rowid.
-- Used by: SQLitePrune, before and after each batch of events it deletes.
SELECT ifnull(max(rowid), 0) FROM events

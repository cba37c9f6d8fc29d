-- upsert_push_cursor: moves a collector's cursor past an answered batch, never back.
-- Parameters: ?1 the collector URL, ?2 the rowid of the batch's last event, ?3 now in ms since the Unix epoch.
INSERT INTO push_cursor (destination, last_rowid, updated_ms) VALUES (?1, ?2, ?3)
ON CONFLICT (destination) DO UPDATE SET last_rowid = max(last_rowid, excluded.last_rowid),
    updated_ms = excluded.updated_ms

-- upsert_push_loss: adds the lines a collector's receipt rejected to its count of the reason.
-- Parameters: ?1 the collector URL, ?2 upload_rejected:REASON, ?3 the lines, ?4 now in ms since the Unix epoch.
INSERT INTO push_losses (destination, reason, count, updated_ms) VALUES (?1, ?2, ?3, ?4)
ON CONFLICT (destination, reason) DO UPDATE SET count = count + excluded.count, updated_ms = excluded.updated_ms

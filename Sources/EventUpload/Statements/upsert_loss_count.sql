-- upsert_loss_count: adds a device loss to the counts still to be sent to the collector.
-- Parameters: ?1 the DropReason name, ?2 the events lost.
INSERT INTO upload_loss_counts (reason, count) VALUES (?1, ?2)
ON CONFLICT (reason) DO UPDATE SET count = count + excluded.count

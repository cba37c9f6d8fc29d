-- delete_pruned_rows: deletes one batch of the raw events before the horizon from a partition that lies before it
-- only in part (the month that holds the horizon, or events_before_1900), with their ids in event_ids.
-- events_partition stands for the partition's name (select_event_partitions.sql), put in by the prune.
-- Parameters: $1 the horizon (ms since the Unix epoch), $2 the most events to delete.
-- Columns: events (deleted; fewer than $2 when the partition holds none before the horizon any more).
-- Used by: PostgresEventStore.prune, a transaction a batch.
WITH doomed AS (
    DELETE FROM events_partition
    WHERE ctid = ANY (ARRAY(SELECT ctid FROM events_partition WHERE ts_ms < $1 LIMIT $2))
    RETURNING id
), ids AS (
    DELETE FROM event_ids WHERE id IN (SELECT id FROM doomed) RETURNING 1
)
SELECT count(*) AS events FROM doomed

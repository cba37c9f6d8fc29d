-- delete_partition_ids: deletes from event_ids the ids of every event of one partition that a prune then drops
-- whole (it lies wholly before the horizon, so no writer stores an event in it again), and counts its events.
-- events_partition stands for the partition's name (select_event_partitions.sql), put in by the prune.
-- Parameters: none.
-- Columns: events (of the partition), ids (deleted). Used by: PostgresEventStore.prune, a transaction a partition.
WITH gone AS (
    DELETE FROM event_ids WHERE id IN (SELECT id FROM events_partition) RETURNING 1
)
SELECT (SELECT count(*) FROM events_partition) AS events, (SELECT count(*) FROM gone) AS ids

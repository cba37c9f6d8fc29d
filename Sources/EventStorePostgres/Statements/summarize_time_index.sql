-- summarize_time_index: summarises the ranges of the BRIN time index (events_by_time, Migrations/postgres/0006) that have no
-- summary yet, in the given partitions of events, the range still filling included (brin_summarize_new_values takes
-- it; rows added to it later update its summary).
-- Parameters: $1 the partitions' names. Columns: ranges, how many ranges were summarised in each partition.
-- Used by: PostgresEventStore.summarizeTimeIndex (at the end of an ingest, and in upkeep, which serve calls
-- every 30 s).
SELECT brin_summarize_new_values(i.indexrelid::regclass)::bigint AS ranges
FROM pg_partition_tree('events_by_time'::regclass) AS t
JOIN pg_index AS i ON i.indexrelid = t.relid
WHERE t.isleaf AND i.indrelid::regclass::text = ANY($1::text[])
ORDER BY i.indrelid::regclass::text

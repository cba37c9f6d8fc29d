-- summarize_filled_ranges: while an ingest goes on, summarises the ranges of the BRIN time index (events_by_time,
-- Migrations/postgres/0006, 128 pages a range) of the given partitions that have no summary yet and lie below their last two
-- whole ranges and the range still filling. The writers are still adding rows to those last ranges, and a range
-- summarised before it is full has its summary updated, and WAL-logged, for every row added to it after.
-- Parameters: $1 the partitions' names, $2 for each, the page from which to look (the `below` of the last call; the
-- ranges before it are summarised).
-- Columns: partition, its name; ranges, how many ranges were summarised; below, the page below which every range
-- now has its summary.
-- Used by: PostgresEventStore.summarizeFilledRanges (after the ingest's writes, while later ones go on).
WITH p AS (
    SELECT t.name, t.since, i.indexrelid AS index,
        (pg_relation_size(i.indrelid) / current_setting('block_size')::bigint / 128 - 2) * 128 AS below
    FROM unnest($1::text[], $2::bigint[]) AS t(name, since)
    JOIN pg_index AS i ON i.indrelid = to_regclass(t.name)
    JOIN pg_partition_tree('events'::regclass) AS tree ON tree.relid = i.indrelid
    JOIN pg_class AS c ON c.oid = i.indexrelid
    JOIN pg_am AS a ON a.oid = c.relam AND a.amname = 'brin'
)
SELECT p.name AS partition,
    coalesce((
        SELECT sum(brin_summarize_range(p.index::regclass, r.page))
        FROM generate_series(p.since, p.below - 1, 128) AS r(page)
    ), 0)::bigint AS ranges,
    greatest(p.below, p.since) AS below
FROM p
ORDER BY p.name

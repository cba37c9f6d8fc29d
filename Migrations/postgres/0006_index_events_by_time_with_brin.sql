-- 0006_index_events_by_time_with_brin: events_by_time becomes a BRIN index on ts_ms (minmax-multi, summarized by
-- autovacuum as each range of pages fills) in place of the B-tree on (ts_ms, id) of 0001.
--
-- Why: events come in about time order (the writers also send each batch's rows sorted by time), so a month's
-- rows lie in time order on disk, the case BRIN is made for. The B-tree took one index entry, and one WAL record,
-- per event: 9-17% of the server's CPU in an ingest (docs/postgres-layout.md, "events_by_time as BRIN"). BRIN
-- keeps one summary per 128 pages, and nothing is done per row while a range fills. minmax-multi keeps several
-- intervals per range, so the events a device uploads days late widen no range to the whole gap.
-- What reads it: the report's edges (the raw events of the partial 15-minute buckets of a window) and exports
-- and views filtered by time, which read only the ranges that may hold the window. An export sorts its rows
-- (ORDER BY time, then id) instead of reading them in index order.

DROP INDEX events_by_time;

CREATE INDEX events_by_time ON events USING brin (ts_ms int8_minmax_multi_ops) WITH (autosummarize = on);

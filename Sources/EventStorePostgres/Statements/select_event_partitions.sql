-- select_event_partitions: the partitions of events and their ranges of ts_ms, [lower, upper), from the catalog:
-- the months (events_YYYY_MM, events_YYYY_MM_N) and the two ends (Migrations/postgres/0007). NULL for MINVALUE or
-- MAXVALUE.
-- Parameters: none.
-- Columns: name (the partition as a regclass's text: quoted when it must be), lower, upper. By lower, MINVALUE
-- first. Used by: PostgresEventStore.prune.
SELECT c.oid::regclass::text AS name,
    substring(b.bound FROM 'FROM \(''?(-?[0-9]+)''?\)')::bigint AS lower,
    substring(b.bound FROM 'TO \(''?(-?[0-9]+)''?\)')::bigint AS upper
FROM pg_inherits AS i
JOIN pg_class AS c ON c.oid = i.inhrelid
CROSS JOIN LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) AS b
WHERE i.inhparent = 'events'::regclass
ORDER BY lower NULLS FIRST, name

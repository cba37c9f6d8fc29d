-- select_attached_months: of the month partitions' names in $1, those that a partition of events has, alone or
-- with a suffix _N (a month whose first table was detached by hand gets events_YYYY_MM_N for its late events).
-- A table of the name that is not attached (detached, archived) does not count: the month needs a new partition.
-- pg_partition_tree reads the catalogs as they are now: a partition another process attached while this
-- transaction waited for the lock of partition creation is seen even under REPEATABLE READ, whose snapshot (taken
-- before that wait) a query of pg_inherits would read.
SELECT n
FROM unnest($1::text[]) AS n
WHERE EXISTS (
    SELECT FROM pg_partition_tree('events'::regclass) AS t
    WHERE t.parentrelid = 'events'::regclass
        AND (t.relid::regclass::text = n OR t.relid::regclass::text LIKE n || '\_%')
)

-- select_attached_months: of the month partitions' names in $1, those that a partition of events has, alone or
-- with a suffix _N (a month whose first table was detached by hand gets events_YYYY_MM_N for its late events).
-- A table of the name that is not attached (detached, archived) does not count: the month needs a new partition.
SELECT n
FROM unnest($1::text[]) AS n
WHERE EXISTS (
    SELECT FROM pg_inherits AS i
    JOIN pg_class AS c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'events'::regclass AND (c.relname = n OR c.relname LIKE n || '\_%')
)

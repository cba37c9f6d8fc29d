-- 0007_replace_the_default_partition: events_other, the DEFAULT partition of events (0001: times before 1900 or
-- after 9999), becomes two range partitions, events_before_1900 [MINVALUE, 1900-01-01) and events_after_9999
-- [10000-01-01, MAXVALUE); its rows go where they belong.
--
-- Why: ALTER TABLE events ATTACH PARTITION, which makes a new month's partition, takes ACCESS EXCLUSIVE on the
-- default partition, if there is one, to check that it holds no row of the new month. The first write of a month
-- therefore waited for every session that had read events_other (an export, a view over all times, any long query
-- of events that is not limited to months) or written it, and every query of events that came after it waited in
-- turn. Without a default partition, attaching a month locks only the new table (and SHARE UPDATE EXCLUSIVE on
-- events, which no read or write takes). The month partitions and these two cover every bigint, so every row has
-- its partition once the writers have made its month's, which they do before they write (PostgresEventStore).
--
-- events_other may also hold events of months inside 1900-9999: those that came after their month's partition was
-- detached (archived) by hand, when no partition had their range. Each such month gets a partition of its own,
-- events_YYYY_MM, or events_YYYY_MM_N when a detached table has that name (which is left alone), as the writers
-- now make one for a late event of a detached month.
--
-- Locks: ACCESS EXCLUSIVE on events (and so on events_other), taken by the DETACH before anything else, until this
-- migration commits: reads and writes of events wait for it, as long as copying the rows of events_other takes
-- (usually none). An older alstats making a month at the same time takes SHARE UPDATE EXCLUSIVE on events before it
-- locks events_other, so one of the two waits for the other, in that order. It waits at most 10 s for its lock behind
-- open transactions on events (a long export); past that the migration fails, changing nothing, and runs again at
-- the next start or `alstats migrate`.

SET LOCAL lock_timeout = '10s';

ALTER TABLE events DETACH PARTITION events_other;

CREATE TABLE events_before_1900 (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION);

CREATE TABLE events_after_9999 (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION);

ALTER TABLE events ATTACH PARTITION events_before_1900 FOR VALUES FROM (MINVALUE) TO (-2208988800000);

ALTER TABLE events ATTACH PARTITION events_after_9999 FOR VALUES FROM (253402300800000) TO (MAXVALUE);

DO $$
DECLARE
    month_start timestamp;
    base text;
    partition_name text;
    suffix int;
BEGIN
    FOR month_start IN
        SELECT DISTINCT date_trunc('month', (to_timestamp(floor(ts_ms / 1000.0)) AT TIME ZONE 'UTC'))
        FROM events_other WHERE ts_ms >= -2208988800000 AND ts_ms < 253402300800000
    LOOP
        base := 'events_' || to_char(month_start, 'YYYY_MM');
        partition_name := base;
        suffix := 0;
        WHILE to_regclass(partition_name) IS NOT NULL LOOP
            suffix := suffix + 1;
            partition_name := base || '_' || suffix;
        END LOOP;
        EXECUTE format('CREATE TABLE %I (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS '
            'INCLUDING STORAGE INCLUDING COMPRESSION)', partition_name);
        EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (%s) TO (%s)', partition_name,
            (extract(epoch FROM month_start AT TIME ZONE 'UTC') * 1000)::bigint,
            (extract(epoch FROM (month_start + interval '1 month') AT TIME ZONE 'UTC') * 1000)::bigint);
    END LOOP;
END
$$;

INSERT INTO events SELECT * FROM events_other;

DROP TABLE events_other;

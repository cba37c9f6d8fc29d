-- 0007_replace_the_default_partition: events_other, the DEFAULT partition of events (0001: times before 1900 or
-- after 9999), becomes two range partitions, events_before_1900 [MINVALUE, 1900-01-01) and events_after_9999
-- [10000-01-01, MAXVALUE), with its rows.
--
-- Why: ALTER TABLE events ATTACH PARTITION, which makes a new month's partition, takes ACCESS EXCLUSIVE on the
-- default partition, if there is one, to check that it holds no row of the new month. The first write of a month
-- therefore waited for every session that had read events_other (an export, a view over all times, any long query
-- of events that is not limited to months) or written it, and every query of events that came after it waited in
-- turn. Without a default partition, attaching a month locks only the new table (and SHARE UPDATE EXCLUSIVE on
-- events, which no read or write takes). The month partitions and these two cover every bigint, so every row has
-- its partition once the writers have made its month's, which they do before they write (PostgresEventStore).
--
-- Detaching takes ACCESS EXCLUSIVE on events until this migration commits: reads and writes wait for it, for as
-- long as copying the rows of events_other takes (none, unless events were stored with times outside 1900-9999).
-- A row of events_other inside 1900-9999 (alstats' writers never store one there: they make the month's partition
-- first) stops the migration with an error, and nothing changes.

DO $$ BEGIN
    IF EXISTS (SELECT FROM events_other WHERE ts_ms >= -2208988800000 AND ts_ms < 253402300800000) THEN
        RAISE EXCEPTION 'events_other holds events of 1900 to 9999, which belong in their month partitions: move them there, then migrate again' ; END IF ; END
$$;

ALTER TABLE events DETACH PARTITION events_other;

CREATE TABLE events_before_1900 (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION);

CREATE TABLE events_after_9999 (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION);

INSERT INTO events_before_1900 SELECT * FROM events_other WHERE ts_ms < -2208988800000;

INSERT INTO events_after_9999 SELECT * FROM events_other WHERE ts_ms >= 253402300800000;

DROP TABLE events_other;

ALTER TABLE events ATTACH PARTITION events_before_1900 FOR VALUES FROM (MINVALUE) TO (-2208988800000);

ALTER TABLE events ATTACH PARTITION events_after_9999 FOR VALUES FROM (253402300800000) TO (MAXVALUE);

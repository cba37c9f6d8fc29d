-- delete_pruned_rows: deletes one batch of the raw events before the horizon from a partition that lies before it
-- only in part (the month that holds the horizon, or events_before_1900), with their ids in event_ids; the install
-- path's events among them (the store taps, installs, first opens and deferred opens) move to
-- pruned_install_events (Migrations/postgres/0013) in the same transaction.
-- events_partition stands for the partition's name (select_event_partitions.sql), put in by the prune.
-- Parameters: $1 the horizon (ms since the Unix epoch), $2 the most events to delete.
-- Columns: rows (deleted from the partition; fewer than $2 when it holds none before the horizon any more), events
-- (of them, those deleted and not kept). Used by: PostgresEventStore.prune, a transaction a batch.
WITH doomed AS (
    DELETE FROM events_partition
    WHERE ctid = ANY (ARRAY(SELECT ctid FROM events_partition WHERE ts_ms < $1 LIMIT $2))
    RETURNING *
), ids AS (
    DELETE FROM event_ids WHERE id IN (SELECT id FROM doomed) RETURNING 1
), kept AS (
    INSERT INTO pruned_install_events (
        id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
        target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra)
    SELECT id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url,
        input_url_scheme, target_url, referer_url, source_application, output_url, output_url_scheme, source_url,
        version, extra
    FROM doomed
    WHERE name IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open')
       OR (name = 'al_nav_in' AND extra LIKE '%"deferred":"1"%')
    RETURNING 1
)
SELECT count(*) AS rows, count(*) - (SELECT count(*) FROM kept) AS events FROM doomed

-- copy_partition_install_events: copies the install path's events of one partition that a prune drops whole into
-- pruned_install_events (Migrations/postgres/0013): the store taps, installs, first opens and deferred opens, found
-- through the partial indexes of Migrations/postgres/0010. Run in the transaction that drops the partition, so
-- that each of them is in exactly one of the two tables. events_partition stands for the partition's name
-- (select_event_partitions.sql), put in by the prune.
-- Parameters: none.
-- Columns: events (copied). Used by: PostgresEventStore.prune.
WITH kept AS (
    INSERT INTO pruned_install_events (
        id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
        target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra)
    SELECT id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url,
        input_url_scheme, target_url, referer_url, source_application, output_url, output_url_scheme, source_url,
        version, extra
    FROM events_partition
    WHERE name IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open')
       OR (name = 'al_nav_in' AND extra LIKE '%"deferred":"1"%')
    RETURNING 1
)
SELECT count(*)::bigint AS events FROM kept

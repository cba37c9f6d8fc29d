-- count_events_before: how many raw events older than an instant a prune would delete (`alstats prune --dry-run`):
-- all but the install path's events, which a prune keeps (collect_pruned_events.sql).
-- Parameters: ?1 the instant (ms since the Unix epoch).
-- Columns: count.
-- Used by: SQLiteEventStore.prune (a dry run).
SELECT count(*) FROM events
WHERE ts_ms < ?1
    AND name NOT IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open')
    AND NOT (name = 'al_nav_in' AND coalesce(extra GLOB '*"deferred":"1"*', 0))

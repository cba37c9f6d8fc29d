-- collect_pruned_events: notes the raw events before the horizon, with their ids' keys, in the prune's own
-- temporary table temp.prune_events (event INTEGER PRIMARY KEY, key INTEGER): what the prune deletes, by rowid
-- and then by key. Reads events through events_by_time; writes only the connection's temporary database.
-- The install path's events stay (docs/design/retention.md): the store taps, installs and first opens, and the
-- al_nav_in of deferred opens, as the partial indexes of Migrations/0019 and EventColumns.keepsUnpacked say. They
-- are the report's only record of the install funnel (Queries/report_installs.sql, report_first_opens.sql), and
-- are never packed, so `extra` holds the deferred mark (a packed al_nav_in has no `extra`: it is not one).
-- Parameters: ?1 the horizon (ms since the Unix epoch).
-- Used by: SQLitePrune.
INSERT INTO temp.prune_events (event, key)
SELECT rowid, alstats_id_key(id) FROM events
WHERE ts_ms < ?1
    AND name NOT IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open')
    AND NOT (name = 'al_nav_in' AND coalesce(extra GLOB '*"deferred":"1"*', 0))

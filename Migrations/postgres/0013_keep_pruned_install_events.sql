-- 0013_keep_pruned_install_events: the install path's events of the months a prune dropped or trimmed
-- (docs/design/retention.md), so that the report's install funnel and first opens stay exact after a prune, as on
-- SQLite, where a prune leaves these events in events.
--
-- pruned_install_events: the rows of events before the retention horizon (0012) that are on the install path: the
--   store taps, installs and first opens (alstats_link_store, alstats_link_install, alstats_first_open) and the
--   al_nav_in of deferred opens (extra holds "deferred":"1"), the rows of the partial indexes of 0010. About one
--   row per store tap, install, first open and deferred open, and the report's only record of them: the median
--   delay from click to install cannot be kept in a count. A prune copies a month's rows here in the transaction
--   that drops the month (and a trimmed month's in the transaction that deletes them), so each such event is in
--   exactly one of events and this table; the report's install queries (Queries/postgres/report_installs.sql,
--   report_first_opens.sql) read both. The same columns as events; no id is claimed for them any more (the horizon
--   refuses older events).

CREATE TABLE pruned_install_events (
    LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMPRESSION
);

-- Serves the report's windows.
CREATE INDEX pruned_install_events_by_time ON pruned_install_events (ts_ms);

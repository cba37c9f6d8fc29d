-- 0012_create_retention_horizon: the instant from which raw events are kept (`alstats prune`, the `retention`
-- setting of `alstats serve`; docs/design/retention.md), as the SQLite store's Migrations/0021.
--
-- A prune drops the month partitions of events that lie wholly before its cut-off (the start of a UTC day) and
-- deletes the rows of a month it covers in part, with their ids in event_ids, and the daily visitor hashes of the
-- hosted links before it (link_visitor_day). The rollups, the link visitor counts and completeness keep the
-- history. Once an event and its id are gone, the same event sent again would look new and be counted a second
-- time; so the cut-off is recorded here first, and every writer refuses an event older than it, counted in
-- completeness as `before_retention`.
--
-- One row, always present. Every write transaction reads it FOR SHARE before it claims ids, and a prune raises
-- since_ms with an UPDATE, which waits for the writes under way to end (at most its lock_timeout) and makes the
-- writes after it read the new value: no write claims the id of an event the prune is deleting.

CREATE TABLE retention_horizon (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    since_ms  bigint, -- raw events before it were deleted, and are refused; NULL: never pruned
    pruned_ms bigint  -- when since_ms was last raised, ms since the Unix epoch
);

INSERT INTO retention_horizon DEFAULT VALUES;

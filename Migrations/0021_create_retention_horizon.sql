-- 0021_create_retention_horizon: the instant from which raw events are kept (`alstats prune`, the `retention`
-- setting of `alstats serve`; docs/design/retention.md).
--
-- A prune deletes the raw events before a cut-off (the start of a UTC day) and their entries in the id index
-- (event_ids, event_ids_recent; the fresh level is the events themselves), and the daily visitor hashes of the
-- hosted links before it (link_visitor_day). The rollups, the link visitor counts and completeness keep the
-- history: the report stays exact for every window whose edges are whole 15-minute buckets. Once an event and
-- its id are gone, the same event sent again would look new and be counted a second time in the rollups; so the
-- cut-off is recorded here first, and every writer refuses an event older than it, counted in completeness as
-- `before_retention` (kind `rejected`).
--
-- One row, always present. since_ms is NULL until a database is first pruned; it only ever rises.
-- rowid_epoch rises when a prune deleted the event with the greatest rowid: SQLite may then give that rowid
-- again, and each writer forgets what it holds in memory of the id index (rowids it has seen) when it sees the
-- epoch change (RetentionHorizon.swift).

CREATE TABLE retention_horizon (
    singleton   INTEGER PRIMARY KEY CHECK (singleton = 1),
    since_ms    INTEGER,           -- raw events before it were deleted, and are refused; NULL: never pruned
    pruned_ms   INTEGER,           -- when since_ms was last raised, ms since the Unix epoch
    rowid_epoch INTEGER NOT NULL DEFAULT 0
);

INSERT INTO retention_horizon (singleton) VALUES (1);

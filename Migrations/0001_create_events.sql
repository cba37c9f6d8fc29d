-- 0001_create_events: the raw events, the source of truth, and the record of applied migrations.
--
-- One row per event id. The fields of the App Links catalogue (shared/spec/events.md) have real
-- columns, NULL when the event lacks the field; every other field goes, losslessly, into `extra`, a
-- compact JSON object of strings (readable with json_each). `success` is the integer 1 or 0 when the
-- field is "1" or "0"; any other value of it is kept under "success" in `extra`.
-- `id` is the 16 bytes of a canonical lowercase UUID, or the id's text for any other id.
-- Written by: SQLiteEventSink and ingest (one transaction per batch, redacted before they write).

CREATE TABLE schema_migrations (
    version    INTEGER PRIMARY KEY,      -- the NNNN of Migrations/NNNN_verb_object.sql
    name       TEXT    NOT NULL,         -- the file name without .sql
    applied_at TEXT    NOT NULL          -- RFC 3339 UTC
);

CREATE TABLE events (
    id                 BLOB    NOT NULL PRIMARY KEY,
    ts_ms              INTEGER NOT NULL, -- milliseconds since the Unix epoch, UTC
    name               TEXT    NOT NULL, -- al_nav_in, al_nav_out, al_ref_back_out, or a host's own name
    ref                TEXT,             -- field ref
    success            INTEGER,          -- field success: 1 or 0
    type               TEXT,             -- field type: app, web, fail
    referer_app_name   TEXT,             -- field refererAppName
    source_url_host    TEXT,             -- field sourceURLHost
    error              TEXT,             -- field error
    input_url          TEXT,             -- field inputURL
    input_url_scheme   TEXT,             -- field inputURLScheme
    target_url         TEXT,             -- field targetURL
    referer_url        TEXT,             -- field refererURL
    source_application TEXT,             -- field sourceApplication
    output_url         TEXT,             -- field outputURL
    output_url_scheme  TEXT,             -- field outputURLScheme
    source_url         TEXT,             -- field sourceURL
    version            TEXT,             -- field version
    extra              TEXT              -- every other field: {"key":"value",...}, keys sorted; NULL when none
) WITHOUT ROWID;

-- Serves export (--since/--until, in time order), the views filtered by time, and rebuilds.
CREATE INDEX events_by_time ON events (ts_ms);

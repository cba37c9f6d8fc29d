-- 0003_create_rollups: the report's rollups, as the SQLite store's (its 0003 and 0005): event_rollup per
-- 15-minute UTC bucket and report dimension, event_rollup_day per UTC day, event_rollup_series per bucket,
-- name, type and success. Kept in the same transaction as the events, from the rows really inserted; a NULL
-- dimension means the event lacked the field, and NULLs group together (UNIQUE NULLS NOT DISTINCT, which
-- needs PostgreSQL 15), so the writers upsert with ON CONFLICT on the columns themselves.

CREATE TABLE event_rollup (
    bucket_ms        bigint NOT NULL,
    name             text   COLLATE "C" NOT NULL,
    ref              text   COLLATE "C",
    referer_app_name text   COLLATE "C",
    type             text   COLLATE "C",
    success          bigint,
    source_url_host  text   COLLATE "C",
    error            text   COLLATE "C",
    count            bigint NOT NULL,
    CONSTRAINT event_rollup_group UNIQUE NULLS NOT DISTINCT (
        bucket_ms, name, ref, referer_app_name, type, success, source_url_host, error)
);

CREATE TABLE event_rollup_day (
    day_ms           bigint NOT NULL,
    name             text   COLLATE "C" NOT NULL,
    ref              text   COLLATE "C",
    referer_app_name text   COLLATE "C",
    type             text   COLLATE "C",
    success          bigint,
    source_url_host  text   COLLATE "C",
    error            text   COLLATE "C",
    count            bigint NOT NULL,
    CONSTRAINT event_rollup_day_group UNIQUE NULLS NOT DISTINCT (
        day_ms, name, ref, referer_app_name, type, success, source_url_host, error)
);

CREATE TABLE event_rollup_series (
    bucket_ms bigint NOT NULL,
    name      text   COLLATE "C" NOT NULL,
    type      text   COLLATE "C",
    success   bigint,
    count     bigint NOT NULL,
    CONSTRAINT event_rollup_series_group UNIQUE NULLS NOT DISTINCT (bucket_ms, name, type, success)
);

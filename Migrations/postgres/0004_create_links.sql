-- 0004_create_links: the hosted App Links and their funnel's rollups, as the SQLite store's (its 0008 and
-- 0009; the same columns and meaning): links, link_rollup, link_rollup_day, link_visitor_day,
-- link_visitor_count, link_public_url, and the view link_event (the one SQL definition of what the writers
-- roll up, LinkRollupKey in Swift; read by the rebuild and the report's window edges).

CREATE TABLE links (
    slug       text   COLLATE "C" NOT NULL PRIMARY KEY,
    json       text   COLLATE "C" NOT NULL,
    updated_ms bigint NOT NULL
);

CREATE TABLE link_rollup (
    bucket_ms        bigint NOT NULL,
    name             text   COLLATE "C" NOT NULL,
    slug             text   COLLATE "C" NOT NULL,
    origin           text   COLLATE "C",
    ref              text   COLLATE "C",
    referer_app_name text   COLLATE "C",
    status           bigint,
    crawler          bigint,
    count            bigint NOT NULL,
    CONSTRAINT link_rollup_group UNIQUE NULLS NOT DISTINCT (
        bucket_ms, name, slug, origin, ref, referer_app_name, status, crawler)
);

CREATE TABLE link_rollup_day (
    day_ms           bigint NOT NULL,
    name             text   COLLATE "C" NOT NULL,
    slug             text   COLLATE "C" NOT NULL,
    origin           text   COLLATE "C",
    ref              text   COLLATE "C",
    referer_app_name text   COLLATE "C",
    status           bigint,
    crawler          bigint,
    count            bigint NOT NULL,
    CONSTRAINT link_rollup_day_group UNIQUE NULLS NOT DISTINCT (
        day_ms, name, slug, origin, ref, referer_app_name, status, crawler)
);

CREATE TABLE link_visitor_day (
    day_ms           bigint NOT NULL,
    slug             text   COLLATE "C" NOT NULL,
    ref              text   COLLATE "C",
    referer_app_name text   COLLATE "C",
    visitor          text   COLLATE "C" NOT NULL,
    CONSTRAINT link_visitor_day_group UNIQUE NULLS NOT DISTINCT (day_ms, slug, visitor, ref, referer_app_name)
);

CREATE TABLE link_visitor_count (
    day_ms           bigint NOT NULL,
    slug             text   COLLATE "C" NOT NULL,
    scope            text   COLLATE "C" NOT NULL CHECK (scope IN ('all', 'ref', 'referer_app', 'both')),
    ref              text   COLLATE "C",
    referer_app_name text   COLLATE "C",
    visitors         bigint NOT NULL,
    CONSTRAINT link_visitor_count_group UNIQUE NULLS NOT DISTINCT (day_ms, slug, scope, ref, referer_app_name)
);

CREATE TABLE link_public_url (
    public_url  text   COLLATE "C" NOT NULL PRIMARY KEY,
    recorded_ms bigint NOT NULL
);

-- The hits (with a `slug` field; status an integer of 1 to 9 digits, else NULL; crawler 1 when "1", else 0)
-- and the al_nav_in whose targetURL is `scheme://authority/l/<slug>`, alone or followed by `?` or `#`.
CREATE VIEW link_event AS
SELECT id, ts_ms, name, slug, NULL::text COLLATE "C" AS origin, ref, referer_app_name,
    CASE WHEN status_text ~ '^[0-9]{1,9}$' THEN status_text::bigint END AS status,
    CASE WHEN crawler_text = '1' THEN 1::bigint ELSE 0::bigint END AS crawler,
    visitor
FROM (
    SELECT id, ts_ms, name, ref, referer_app_name, (extra::jsonb ->> 'slug') COLLATE "C" AS slug,
        extra::jsonb ->> 'status' AS status_text, extra::jsonb ->> 'crawler' AS crawler_text,
        (extra::jsonb ->> 'visitor') COLLATE "C" AS visitor
    FROM events
    WHERE name = 'alstats_link_hit' AND extra IS NOT NULL
) AS hits
WHERE slug IS NOT NULL
UNION ALL
SELECT id, ts_ms, name, parts[3] COLLATE "C", (parts[1] || '://' || parts[2]) COLLATE "C", ref, referer_app_name,
    NULL::bigint, NULL::bigint, NULL::text COLLATE "C"
FROM (
    SELECT id, ts_ms, name, ref, referer_app_name,
        regexp_match(target_url, '^([A-Za-z0-9+.-]+)://([^/?#]+)/l/([A-Za-z0-9_-]{1,64})(?:[?#]|$)') AS parts
    FROM events
    WHERE name = 'al_nav_in' AND target_url IS NOT NULL
) AS arrivals
WHERE parts IS NOT NULL;

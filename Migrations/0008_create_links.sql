-- 0008_create_links: the hosted App Links (issue 14), served as pages at /l/{slug}.
--
-- One row per link; `json` is the link's canonical JSON (HostedLink.jsonValue in HostedLinks), so the
-- store needs no knowledge of the link's form. Written by: `alstats links put` (SQLiteEventStore.putLinks).
-- Read by: `alstats links list|show`, and the page and the admin API of `alstats serve`.

CREATE TABLE links (
    slug       TEXT    NOT NULL PRIMARY KEY,  -- 1 to 64 of A-Z a-z 0-9 _ -
    json       TEXT    NOT NULL,              -- the canonical JSON of the link
    updated_ms INTEGER NOT NULL               -- when it was last put, ms since the Unix epoch
) WITHOUT ROWID;

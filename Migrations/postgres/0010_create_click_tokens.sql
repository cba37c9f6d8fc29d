-- 0008_create_click_tokens: the click tokens of the install path and the report's indexes of its events, as the
-- SQLite store's 0017 (the same columns and meaning; docs/install.md).
--
-- click_tokens: one row per minted token for the claim window only; a claim sets install, platform, claimed_ms and
--   install_event at once, only where install is NULL: an UPDATE that re-checks its condition on the row it waited
--   for, so that of several collectors claiming one token at once exactly one wins. No address or User-Agent.
-- events_install_path, events_deferred_opens: partial indexes of events (created on every month partition, now
--   and when the writers create one) by time, of the store taps, installs, first opens and deferred opens. A deferred
--   open is found by its text: extra is a JSON object of strings whose quotes inside values are escaped, so
--   `"deferred":"1"` occurs in it only as that member (a cast to jsonb could fail a write; a match cannot).

CREATE TABLE click_tokens (
    token         text   COLLATE "C" NOT NULL PRIMARY KEY,
    slug          text   COLLATE "C" NOT NULL,
    minted_ms     bigint NOT NULL,
    query         text   COLLATE "C" NOT NULL,
    install       text   COLLATE "C",
    platform      text   COLLATE "C",
    claimed_ms    bigint,
    install_event text   COLLATE "C"
);

CREATE INDEX click_tokens_by_time ON click_tokens (minted_ms);

CREATE INDEX events_install_path ON events (ts_ms)
WHERE name IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open');

CREATE INDEX events_deferred_opens ON events (ts_ms)
WHERE name = 'al_nav_in' AND extra LIKE '%"deferred":"1"%';

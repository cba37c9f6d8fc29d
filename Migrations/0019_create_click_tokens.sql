-- 0017_create_click_tokens: the click tokens of the install path (docs/install.md), and the indexes the report's
-- install funnel reads (Queries/report_installs.sql, Queries/report_first_opens.sql).
--
-- click_tokens: one row per token minted by a hosted link page (or by a store button reached without one), for the
--   claim window only (`deferred_window`, 7 days by default): the store deletes the rows minted before the window
--   (ClickTokenStore.deleteClicks), so that no install id outlives it. `query` holds the values the page passed on
--   (pass_query and ref), percent-encoded as its URLs carry them. The claim columns are NULL until an installed
--   app claims the token; a claim sets all four at once, and only where `install` is NULL (one claim wins, also
--   with several collectors). Neither an address nor a User-Agent is ever stored here.
-- events_install_path: the store taps, installs and first opens (alstats_link_store, alstats_link_install,
--   alstats_first_open), by time; the report reads only these rows for its funnel.
-- events_deferred_opens: the al_nav_in of an app opened on a deferred link (field deferred "1"), by time, found by
--   the text of `extra` (a JSON object of strings whose quotes inside values are escaped, so `"deferred":"1"` occurs
--   in it only as that member; a match never fails a write, as a JSON function could on text it cannot parse).
--   These events and those of the install path are never packed (0016), so `extra` holds their fields.

CREATE TABLE click_tokens (
    token         TEXT    NOT NULL PRIMARY KEY, -- 16 bytes in base64url (22 characters): ms time (6), random (10)
    slug          TEXT    NOT NULL,             -- the link whose page or store button minted it
    minted_ms     INTEGER NOT NULL,             -- when, ms since the Unix epoch: the click's time
    query         TEXT    NOT NULL,             -- the passed values: ref=mail&referral=42 ('' when none)
    install       TEXT,                         -- the claiming app's install id (random), NULL until claimed
    platform      TEXT,                         -- ios or android, as the claim said
    claimed_ms    INTEGER,                      -- when it was claimed, ms since the Unix epoch
    install_event TEXT                          -- the id of the claim's alstats_link_install event
) WITHOUT ROWID;

-- Serves the deletion of the clicks whose window has ended.
CREATE INDEX click_tokens_by_time ON click_tokens (minted_ms);

CREATE INDEX events_install_path ON events (ts_ms)
WHERE name = 'alstats_link_store' OR name = 'alstats_link_install' OR name = 'alstats_first_open';

CREATE INDEX events_deferred_opens ON events (ts_ms)
WHERE name = 'al_nav_in' AND extra GLOB '*"deferred":"1"*';

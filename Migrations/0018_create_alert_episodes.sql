-- 0018_create_alert_episodes: the alert episodes of `alstats serve`'s alert delivery (issue 54), so that each is
-- posted to the webhook once, across restarts.
--
-- An episode is one cause of the alerts (a slice such as `source_host=video.example.org`) from the evaluation
-- that first lists it to the one that no longer does. Two notices are owed for it, `firing` and then `resolved`;
-- each is sent by whichever server claims it first (claim_owner, until claim_until_ms: a lease that a server that
-- died mid-send lets expire), retried after retry_at_ms when the webhook failed, and marked sent once the webhook
-- answered 2xx. Written and read by: the alert notifier of `alstats serve` (SQLiteEventStore+AlertEpisodes).

CREATE TABLE alert_episodes (
    id               INTEGER PRIMARY KEY,
    slice            TEXT    NOT NULL,           -- dimension, or dimension=value: all, source_host=h, ref=r, link=s
    alert            TEXT    NOT NULL,           -- the cause's alert JSON (with what it explains) when it opened
    opened_ms        INTEGER NOT NULL,           -- the evaluation that first listed it, ms since the Unix epoch
    resolved_ms      INTEGER,                    -- the first that no longer did; NULL while it lasts
    firing_sent_ms   INTEGER,                    -- when the webhook took the firing notice; NULL until then
    resolved_sent_ms INTEGER,                    -- when it took the resolved notice; NULL until then
    failed_attempts  INTEGER NOT NULL DEFAULT 0, -- failed attempts of the notice owed now
    retry_at_ms      INTEGER NOT NULL DEFAULT 0, -- the notice owed is not sent before this time
    claim_owner      TEXT,                       -- the server sending it now (a random id per run)
    claim_until_ms   INTEGER                     -- its claim lapses then
);

-- At most one open episode per slice: opening one is an INSERT that does nothing when it is open already.
CREATE UNIQUE INDEX alert_episodes_open ON alert_episodes (slice) WHERE resolved_ms IS NULL;

-- The episodes that still owe a notice, by when it is due.
CREATE INDEX alert_episodes_owed ON alert_episodes (retry_at_ms)
    WHERE firing_sent_ms IS NULL OR (resolved_ms IS NOT NULL AND resolved_sent_ms IS NULL);

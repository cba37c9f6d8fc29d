-- 0009_create_alert_episodes: the alert episodes of `alstats serve`'s alert delivery, as the SQLite store's (its
-- 0018; the same columns and meaning): each episode's firing and resolved notices are posted to the webhook once,
-- across restarts and across the servers that share this database. A server claims a notice with one UPDATE of
-- the row (claim_owner, claim_until_ms: a lease), so that two servers never both send it.

CREATE TABLE alert_episodes (
    id               bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slice            text   COLLATE "C" NOT NULL,
    alert            text   NOT NULL,
    opened_ms        bigint NOT NULL,
    resolved_ms      bigint,
    firing_sent_ms   bigint,
    resolved_sent_ms bigint,
    failed_attempts  bigint NOT NULL DEFAULT 0,
    retry_at_ms      bigint NOT NULL DEFAULT 0,
    claim_owner      text   COLLATE "C",
    claim_until_ms   bigint
);

CREATE UNIQUE INDEX alert_episodes_open ON alert_episodes (slice) WHERE resolved_ms IS NULL;

CREATE INDEX alert_episodes_owed ON alert_episodes (retry_at_ms)
    WHERE firing_sent_ms IS NULL OR (resolved_ms IS NOT NULL AND resolved_sent_ms IS NULL);

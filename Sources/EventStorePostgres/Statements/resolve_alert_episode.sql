-- resolve_alert_episode: resolves an open episode; a resolved one is left as it is.
-- Parameters: $1 id, $2 now (ms). Columns: id, when this statement resolved it.
-- Used by: PostgresEventStore.resolveAlertEpisode.
UPDATE alert_episodes SET resolved_ms = $2 WHERE id = $1 AND resolved_ms IS NULL
RETURNING id

-- insert_alert_episode: opens an episode of a slice, unless one of that slice is open (alert_episodes_open).
-- Parameters: ?1 slice, ?2 alert JSON, ?3 now (ms). Used by: SQLiteEventStore.openAlertEpisode (changes() tells).
INSERT INTO alert_episodes (slice, alert, opened_ms) VALUES (?1, ?2, ?3)
ON CONFLICT (slice) WHERE resolved_ms IS NULL DO NOTHING

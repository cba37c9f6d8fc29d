-- select_open_alert_episodes: the alert episodes not resolved, by id.
-- Columns: id, slice, alert, opened_ms, resolved_ms (NULL). Used by: SQLiteEventStore.openAlertEpisodes.
SELECT id, slice, alert, opened_ms, resolved_ms FROM alert_episodes WHERE resolved_ms IS NULL ORDER BY id

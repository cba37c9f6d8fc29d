-- select_next_alert_delivery: when the next notice owed can be claimed: its retry time, or the end of the claim that
-- holds it.
-- Columns: that time in ms, NULL when no notice is owed. Used by: SQLiteEventStore.nextAlertDeliveryTime.
SELECT min(max(retry_at_ms, ifnull(claim_until_ms, 0))) FROM alert_episodes
WHERE firing_sent_ms IS NULL OR (resolved_ms IS NOT NULL AND resolved_sent_ms IS NULL)

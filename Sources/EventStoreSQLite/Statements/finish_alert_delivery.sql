-- finish_alert_delivery: records a claimed notice as sent and ends the claim; the next notice starts afresh. Nothing
-- changes when the claim is another owner's (this one's lapsed and was taken).
-- Parameters: ?1 id, ?2 owner, ?3 notice ('firing' or 'resolved'), ?4 now (ms).
-- Used by: SQLiteEventStore.finishAlertDelivery.
UPDATE alert_episodes SET
    firing_sent_ms = CASE WHEN ?3 = 'firing' THEN ?4 ELSE firing_sent_ms END,
    resolved_sent_ms = CASE WHEN ?3 = 'resolved' THEN ?4 ELSE resolved_sent_ms END,
    failed_attempts = 0, retry_at_ms = 0, claim_owner = NULL, claim_until_ms = NULL
WHERE id = ?1 AND claim_owner = ?2

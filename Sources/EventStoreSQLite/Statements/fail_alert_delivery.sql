-- fail_alert_delivery: records a failed attempt of a claimed notice and ends the claim; the notice is due again at the
-- retry time. Nothing changes when the claim is another owner's.
-- Parameters: ?1 id, ?2 owner, ?3 retry time (ms). Used by: SQLiteEventStore.failAlertDelivery.
UPDATE alert_episodes SET
    failed_attempts = failed_attempts + 1, retry_at_ms = ?3, claim_owner = NULL, claim_until_ms = NULL
WHERE id = ?1 AND claim_owner = ?2

-- claim_alert_delivery: claims the notice due soonest: an episode whose firing notice was not sent, or that resolved
-- and whose resolved notice was not sent, whose retry time has come and that no claim holds (one whose lease ended
-- lapsed). The row is locked as it is chosen, and rows another server is claiming are skipped: two servers that claim
-- at once never get the same notice.
-- Parameters: $1 owner, $2 now (ms), $3 the end of the claim's lease (ms).
-- Columns: id, slice, alert, opened_ms, resolved_ms, firing_sent_ms, failed_attempts of the claimed episode (no row:
-- none is due). Used by: PostgresEventStore.claimAlertDelivery.
UPDATE alert_episodes SET claim_owner = $1, claim_until_ms = $3
WHERE id = (
    SELECT id FROM alert_episodes
    WHERE (firing_sent_ms IS NULL OR (resolved_ms IS NOT NULL AND resolved_sent_ms IS NULL))
        AND retry_at_ms <= $2 AND (claim_until_ms IS NULL OR claim_until_ms <= $2)
    ORDER BY retry_at_ms, id
    LIMIT 1
    FOR UPDATE SKIP LOCKED)
RETURNING id, slice, alert, opened_ms, resolved_ms, firing_sent_ms, failed_attempts

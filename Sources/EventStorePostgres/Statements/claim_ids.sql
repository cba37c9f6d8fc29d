-- claim_ids: claims the ids of a batch; an id already in event_ids (stored by any writer, any time) is skipped.
-- Run in the batch's transaction, before its events are copied into events: a rollback releases the claims with the
-- events. A claim of an id that another open transaction holds waits for that one to end.
-- Parameters: $1 the batch's ids, distinct and sorted (so that concurrent writers wait on each other's claims in one
-- order).
-- Columns: id, for each id claimed. Used by: PostgresEventStore.writeBatches.
INSERT INTO event_ids (id)
SELECT id FROM unnest($1::text[]) AS candidate (id)
ON CONFLICT DO NOTHING
RETURNING id

-- claim_event_ids: claims the ids of a batch for the events about to be stored; an id already stored (by any
-- writer, any time) is not returned. Run in the batch's transaction: a rollback releases the claims.
-- Parameters: $1 the ids, distinct, sorted (so that concurrent writers wait on each other in one order).
-- Columns: id, for each id newly claimed. Used by: PostgresEventStore.writeBatches.
INSERT INTO event_ids (id)
SELECT id FROM unnest($1::text[]) AS claimed (id)
ON CONFLICT DO NOTHING
RETURNING id

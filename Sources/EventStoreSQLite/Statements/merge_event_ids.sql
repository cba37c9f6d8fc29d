-- merge_event_ids: moves the recent level of the id index into the large one, in key order: one
-- sequential pass over the large level instead of a random page per id. Run inside the writer's
-- transaction, followed by clear_event_ids_recent.sql. Parameters: none. Used by: EventIDIndex.
INSERT INTO event_ids (key, event)
SELECT key, event FROM event_ids_recent ORDER BY key, event

-- clear_event_ids_recent: empties the recent level of the id index once merge_event_ids.sql has copied it.
-- Parameters: none. Used by: EventIDIndex.
DELETE FROM event_ids_recent

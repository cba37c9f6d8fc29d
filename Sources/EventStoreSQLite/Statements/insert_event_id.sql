-- insert_event_id: indexes a newly stored event under its id's key, in the recent level of the id index.
-- Parameters: ?1 the id's key (EventIDKey), ?2 the event's rowid. Used by: EventIDIndex (EventWriter).
INSERT INTO event_ids_recent (key, event) VALUES (?1, ?2)

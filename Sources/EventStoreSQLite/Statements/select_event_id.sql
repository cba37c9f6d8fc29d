-- select_event_id: whether an id is stored, looked up by its key in both levels of the id index
-- (Migrations/0011_index_event_ids_by_key.sql) and compared exactly with the id stored in `events`.
-- Parameters: ?1 the id's key (EventIDKey), ?2 the id (16-byte blob for a UUID, else text, as insert_event).
-- Columns: 1 when the id is stored; no row otherwise. Used by: EventIDIndex (EventWriter).
SELECT 1
FROM event_ids_recent AS k JOIN events AS e ON e.rowid = k.event
WHERE k.key = ?1 AND e.id = ?2
UNION ALL
SELECT 1
FROM event_ids AS k JOIN events AS e ON e.rowid = k.event
WHERE k.key = ?1 AND e.id = ?2
LIMIT 1

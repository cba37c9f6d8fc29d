-- pack_unpacked_events: packs the stored rows not packed yet with the database's latest dictionary
-- (Migrations/0016_pack_event_fields.sql): the rows of a pack_stored_events just run, and rows a writer stored
-- unpacked since (encoded before the dictionary was trained). A row whose payload is larger than ?1 bytes (what a
-- reader expands at most) stays unpacked, as does a row without long fields, and the rows the report's install
-- funnel reads from `extra` (Migrations/0017: store taps, installs, first opens and deferred opens, as
-- EventColumns.keepsUnpacked says); nothing when there is no dictionary.
-- Parameters: ?1 the largest payload packed, in bytes (EventPacker.maximumPayload); ?2 the first rowid looked at.
-- Run inside a transaction. Used by: EventWriter.packStoredEvents (SQLiteEventStore.pack(), the ingest's training, from
-- the first rowid) and EventWriter.commit (the rows of batches encoded before the training, from the first of them).
UPDATE events
SET packed = alstats_pack(alstats_pack_payload(input_url, target_url, referer_url, output_url, source_url, extra), (SELECT id FROM event_pack_dictionaries ORDER BY created_ms DESC, rowid DESC LIMIT 1)),
    input_url = NULL, target_url = NULL, referer_url = NULL, output_url = NULL, source_url = NULL, extra = NULL
WHERE rowid >= ?2
    AND packed IS NULL
    AND EXISTS (SELECT 1 FROM event_pack_dictionaries)
    AND name NOT IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open')
    AND NOT (name = 'al_nav_in' AND coalesce(extra GLOB '*"deferred":"1"*', 0))
    AND length(alstats_pack_payload(input_url, target_url, referer_url, output_url, source_url, extra)) <= ?1;

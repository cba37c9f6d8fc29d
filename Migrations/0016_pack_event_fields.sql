-- 0016_pack_event_fields: room for packed fields, which a database uses only when asked to
-- (`alstats pack`, `alstats ingest --pack`, SQLiteEventStore.Options.packFields).
--
-- A packed row keeps its long fields (inputURL, targetURL, refererURL, outputURL, sourceURL and the extra
-- fields' JSON) in one value, `packed`, compressed with Zstandard and a dictionary trained on the database's
-- own events; their columns are NULL. On wide real-world events those six columns were four fifths of a row
-- and the file 0.83 times the NDJSON it was ingested from; packed, the file is about 0.4 times it
-- (docs/design/storage-layout.md, "Packed fields"). Every bit of every field is kept: `alstats export`
-- reproduces the events exactly.
--
-- Packing is not the default because it changes who can read the views: a packed database's views read the
-- packed fields through alstats's SQL function alstats_field, which `alstats query` and every connection
-- alstats opens have and the `sqlite3` shell does not (docs/sql.md, "Packed databases"). This migration
-- changes no row and no view; Statements/pack_stored_events.sql does both when a database is packed.

ALTER TABLE events ADD COLUMN packed BLOB; -- the packed fields, NULL in a row that keeps them in their columns

CREATE TABLE event_pack_dictionaries (
    id         INTEGER PRIMARY KEY, -- a hash of the dictionary (alstats_pack_dictionary_id): never reused
    dictionary BLOB    NOT NULL, -- a Zstandard dictionary (zdict.h's trainer)
    samples    INTEGER NOT NULL, -- how many events it was trained on
    created_ms INTEGER NOT NULL  -- when, ms since the Unix epoch
);

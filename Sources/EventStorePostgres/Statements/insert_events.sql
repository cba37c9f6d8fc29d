-- insert_events: claims the ids of a batch and stores the events whose id it claimed, in one statement (one round
-- trip, the ids sent once): an id already in event_ids (stored by any writer, any time) is skipped. Run in the
-- batch's transaction: a rollback releases the claims with the events.
-- Parameters: one array per column, the events' ids distinct and sorted (so that concurrent writers wait on each
-- other's claims in one order): $1 id, $2 ts_ms, $3 name, $4..$18 the field columns in EventColumns.fields order
-- (ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme, target_url,
-- referer_url, source_application, output_url, output_url_scheme, source_url, version), $19 extra; NULL where
-- absent.
-- Columns: id, for each event stored. Used by: PostgresEventStore.writeBatches.
WITH claimed AS (
    INSERT INTO event_ids (id)
    SELECT id FROM unnest($1::text[]) AS candidate (id)
    ON CONFLICT DO NOTHING
    RETURNING id
)
INSERT INTO events (
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra
)
SELECT * FROM unnest(
    $1::text[], $2::bigint[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::text[], $9::text[],
    $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
    $18::text[], $19::text[]
) AS candidate (
    id, ts_ms, name, ref, success, type, referer_app_name, source_url_host, error, input_url, input_url_scheme,
    target_url, referer_url, source_application, output_url, output_url_scheme, source_url, version, extra
)
WHERE candidate.id IN (SELECT id FROM claimed)
RETURNING id

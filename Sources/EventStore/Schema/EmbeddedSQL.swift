/// The SQL files of EventStore, embedded in the binary by SwiftPM (`resources: [.embedInCode(...)]` in
/// Package.swift), so that a lone copied `alstats` binary still migrates.
///
/// SwiftPM names each file's bytes after the file (`0001_create_events.sql` becomes
/// `PackageResources._001_create_events_sql`); this index gives them back their names. A new `.sql` file
/// needs one line here; `EmbeddedSQLTests` fails until the index and the folders match.
package enum EmbeddedSQL {
    /// `Sources/EventStore/Migrations/NNNN_verb_object.sql`, in order.
    package static let migrations: [EmbeddedSQLFile] = [
        EmbeddedSQLFile("0001_create_events.sql", PackageResources._001_create_events_sql),
        EmbeddedSQLFile("0002_create_completeness.sql", PackageResources._002_create_completeness_sql),
        EmbeddedSQLFile("0003_create_rollups.sql", PackageResources._003_create_rollups_sql),
        EmbeddedSQLFile("0004_create_views.sql", PackageResources._004_create_views_sql),
        EmbeddedSQLFile(
            "0005_create_day_and_series_rollups.sql", PackageResources._005_create_day_and_series_rollups_sql),
        EmbeddedSQLFile("0006_cluster_events_by_arrival.sql", PackageResources._006_cluster_events_by_arrival_sql),
        EmbeddedSQLFile("0007_count_altered_events.sql", PackageResources._007_count_altered_events_sql),
        EmbeddedSQLFile("0008_create_links.sql", PackageResources._008_create_links_sql),
        EmbeddedSQLFile("0009_create_link_rollups.sql", PackageResources._009_create_link_rollups_sql),
        EmbeddedSQLFile("0010_create_upload_outbox.sql", PackageResources._010_create_upload_outbox_sql),
        EmbeddedSQLFile("0011_index_event_ids_by_key.sql", PackageResources._011_index_event_ids_by_key_sql),
        EmbeddedSQLFile("0012_create_upload_losses.sql", PackageResources._012_create_upload_losses_sql),
        EmbeddedSQLFile("0013_add_fresh_event_ids.sql", PackageResources._013_add_fresh_event_ids_sql),
        EmbeddedSQLFile("0014_derive_fresh_event_ids.sql", PackageResources._014_derive_fresh_event_ids_sql),
        EmbeddedSQLFile(
            "0015_count_upload_outbox_per_statement.sql",
            PackageResources._015_count_upload_outbox_per_statement_sql),
    ]

    /// `Sources/EventStore/Statements/NAME.sql`: the write path's and export's own statements, by name.
    static let statements: [EmbeddedSQLFile] = [
        EmbeddedSQLFile("clear_event_ids_recent.sql", PackageResources.clear_event_ids_recent_sql),
        EmbeddedSQLFile("insert_event.sql", PackageResources.insert_event_sql),
        EmbeddedSQLFile("insert_event_id.sql", PackageResources.insert_event_id_sql),
        EmbeddedSQLFile("insert_link_visitor.sql", PackageResources.insert_link_visitor_sql),
        EmbeddedSQLFile("merge_event_ids.sql", PackageResources.merge_event_ids_sql),
        EmbeddedSQLFile("rebuild_link_rollups.sql", PackageResources.rebuild_link_rollups_sql),
        EmbeddedSQLFile("rebuild_rollups.sql", PackageResources.rebuild_rollups_sql),
        EmbeddedSQLFile("select_event_id.sql", PackageResources.select_event_id_sql),
        EmbeddedSQLFile("select_events.sql", PackageResources.select_events_sql),
        EmbeddedSQLFile("select_events_after.sql", PackageResources.select_events_after_sql),
        EmbeddedSQLFile("select_link_visitor.sql", PackageResources.select_link_visitor_sql),
        EmbeddedSQLFile("upsert_completeness.sql", PackageResources.upsert_completeness_sql),
        EmbeddedSQLFile("upsert_link_rollup.sql", PackageResources.upsert_link_rollup_sql),
        EmbeddedSQLFile("upsert_link_rollup_day.sql", PackageResources.upsert_link_rollup_day_sql),
        EmbeddedSQLFile("upsert_link_visitor_count.sql", PackageResources.upsert_link_visitor_count_sql),
        EmbeddedSQLFile("upsert_rollup.sql", PackageResources.upsert_rollup_sql),
        EmbeddedSQLFile("upsert_rollup_day.sql", PackageResources.upsert_rollup_day_sql),
        EmbeddedSQLFile("upsert_rollup_series.sql", PackageResources.upsert_rollup_series_sql),
    ]

    /// The text of `Statements/NAME.sql`; a missing name is a programmer error caught by EmbeddedSQLTests.
    package static func statement(_ name: String) -> String {
        statements.text(of: name, index: "EmbeddedSQL.statements")
    }
}

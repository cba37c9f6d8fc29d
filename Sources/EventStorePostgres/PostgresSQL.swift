import EventStore

/// The SQL files of EventStorePostgres, embedded in the binary by SwiftPM (`resources: [.embedInCode(...)]` in
/// Package.swift), as EventStore's are: SwiftPM names each file's bytes after the file; this index gives them
/// back their names. A new `.sql` file needs one line here; `PostgresSQLTests` fails until the index and the
/// folders match.
package enum PostgresSQL {
    /// `Sources/EventStorePostgres/Migrations/NNNN_verb_object.sql`, in order.
    package static let migrations: [EmbeddedSQLFile] = [
        EmbeddedSQLFile("0001_create_events.sql", PackageResources._001_create_events_sql),
        EmbeddedSQLFile("0002_create_completeness.sql", PackageResources._002_create_completeness_sql),
        EmbeddedSQLFile("0003_create_rollups.sql", PackageResources._003_create_rollups_sql),
        EmbeddedSQLFile("0004_create_links.sql", PackageResources._004_create_links_sql),
        EmbeddedSQLFile("0005_create_views.sql", PackageResources._005_create_views_sql),
        EmbeddedSQLFile(
            "0006_index_events_by_time_with_brin.sql", PackageResources._006_index_events_by_time_with_brin_sql),
        EmbeddedSQLFile(
            "0007_replace_the_default_partition.sql", PackageResources._007_replace_the_default_partition_sql),
    ]

    /// `Sources/EventStorePostgres/Statements/NAME.sql`, by name.
    package static let statements: [EmbeddedSQLFile] = [
        EmbeddedSQLFile("claim_ids.sql", PackageResources.claim_ids_sql),
        EmbeddedSQLFile("insert_link_visitors.sql", PackageResources.insert_link_visitors_sql),
        EmbeddedSQLFile("rebuild_rollups.sql", PackageResources.rebuild_rollups_sql),
        EmbeddedSQLFile("select_attached_months.sql", PackageResources.select_attached_months_sql),
        EmbeddedSQLFile("select_events.sql", PackageResources.select_events_sql),
        EmbeddedSQLFile("select_link_visitors.sql", PackageResources.select_link_visitors_sql),
        EmbeddedSQLFile("summarize_filled_ranges.sql", PackageResources.summarize_filled_ranges_sql),
        EmbeddedSQLFile("summarize_time_index.sql", PackageResources.summarize_time_index_sql),
        EmbeddedSQLFile("upsert_completeness.sql", PackageResources.upsert_completeness_sql),
        EmbeddedSQLFile("upsert_link_rollup.sql", PackageResources.upsert_link_rollup_sql),
        EmbeddedSQLFile("upsert_link_rollup_day.sql", PackageResources.upsert_link_rollup_day_sql),
        EmbeddedSQLFile("upsert_link_visitor_count.sql", PackageResources.upsert_link_visitor_count_sql),
        EmbeddedSQLFile("upsert_rollup.sql", PackageResources.upsert_rollup_sql),
        EmbeddedSQLFile("upsert_rollup_day.sql", PackageResources.upsert_rollup_day_sql),
        EmbeddedSQLFile("upsert_rollup_series.sql", PackageResources.upsert_rollup_series_sql),
    ]

    /// The text of `Statements/NAME.sql`; a missing name is a programmer error caught by PostgresSQLTests.
    package static func statement(_ name: String) -> String {
        statements.text(of: name, index: "PostgresSQL.statements")
    }

    /// The statements of a file of several (a migration, a rebuild): comment lines dropped, split at each `;` that
    /// ends a line outside a body quoted with `$$` (a `DO` block's or a function's, whose own statements end lines
    /// too). Our files hold no `;` at a line's end inside a string.
    package static func split(_ text: String) -> [String] {
        var statements: [String] = []
        var current: [Substring] = []
        var inBody = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingPrefix(while: { $0 == " " })
            if trimmed.hasPrefix("--") { continue }
            if line.split(separator: "$$", omittingEmptySubsequences: false).count % 2 == 0 { inBody.toggle() }
            if line.hasSuffix(";"), !inBody {
                current.append(line.dropLast())
                statements.append(current.joined(separator: "\n"))
                current.removeAll()
            } else {
                current.append(line)
            }
        }
        statements.append(current.joined(separator: "\n"))
        return statements.filter { !$0.allSatisfy(\.isWhitespace) }
    }
}

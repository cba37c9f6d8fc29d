import EventStore

/// The bundled queries, `Sources/EventReport/Queries/NAME.sql` and their PostgreSQL variants
/// `NAME.postgres.sql`, embedded in the binary by SwiftPM
/// (`resources: [.embedInCode("Queries")]` in Package.swift), so that a lone copied `alstats` binary
/// still runs them. A new query needs one line here; `BundledQueriesTests` fails until the index and
/// the folder match.
enum BundledQueries {
    /// Every bundled query file, by name.
    static let files: [EmbeddedSQLFile] = [
        EmbeddedSQLFile("daily_funnel.postgres.sql", PackageResources.daily_funnel_postgres_sql),
        EmbeddedSQLFile("daily_funnel.sql", PackageResources.daily_funnel_sql),
        EmbeddedSQLFile("failure_reasons.postgres.sql", PackageResources.failure_reasons_postgres_sql),
        EmbeddedSQLFile("failure_reasons.sql", PackageResources.failure_reasons_sql),
        EmbeddedSQLFile("link_funnel.postgres.sql", PackageResources.link_funnel_postgres_sql),
        EmbeddedSQLFile("link_funnel.sql", PackageResources.link_funnel_sql),
        EmbeddedSQLFile("recent_failures.sql", PackageResources.recent_failures_sql),
        EmbeddedSQLFile("ref_categories.sql", PackageResources.ref_categories_sql),
        EmbeddedSQLFile("referer_apps.sql", PackageResources.referer_apps_sql),
        EmbeddedSQLFile("report_daily.postgres.sql", PackageResources.report_daily_postgres_sql),
        EmbeddedSQLFile("report_daily.sql", PackageResources.report_daily_sql),
        EmbeddedSQLFile("report_groups.postgres.sql", PackageResources.report_groups_postgres_sql),
        EmbeddedSQLFile("report_groups.sql", PackageResources.report_groups_sql),
        EmbeddedSQLFile("report_links.postgres.sql", PackageResources.report_links_postgres_sql),
        EmbeddedSQLFile("report_links.sql", PackageResources.report_links_sql),
        EmbeddedSQLFile("slowest_growing_refs.sql", PackageResources.slowest_growing_refs_sql),
        EmbeddedSQLFile("source_hosts.sql", PackageResources.source_hosts_sql),
    ]
}

import EventStore

/// The PostgreSQL store behind the backend protocol (issue 16 part A), so that the server and the CLI need not
/// know which backend they write to. `ReportSource` (the report's rows and `alstats query`) is not conformed yet:
/// ``PostgresEventStore/rows(for:)`` is there, `runQuery` is not.
extension PostgresEventStore: EventBackend {}

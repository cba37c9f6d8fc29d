// The Swift snippets of docs/postgres.md, in functions so that they compile (`bash .ci/docs` checks that each
// snippet of the guide is here, line for line). What a snippet takes from the host program is a parameter.

import EventReport
import EventStoreInterface
import EventStorePostgres
import MeasurementEvents

/// docs/postgres.md, "From Swift".
func postgresWritesAndReports(events: [MeasurementEvent]) async throws {
    let store = try await PostgresEventStore.open(url: "postgres://alstats@db.example.com/alstats?sslmode=require")
    let stored = try await store.writeBatches([events])  // for each batch, how many of its events were new
    let report = try await store.readReport(for: ReportQuery(ref: "feed"))
    await store.close()
    print(stored, report.totals)
}

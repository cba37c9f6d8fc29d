import EventReport
import EventStoreInterface
import Hummingbird
import MeasurementEvents

/// The report over HTTP (read role): `GET /api/report` (the JSON contract of docs/cli.md), from the same
/// ``ReportSource`` and renderers as `alstats report`, with its options as query parameters
/// (``ReportParameters``); the dashboard's routes (``DashboardRoutes``) read through it too.
///
/// The report is read on an executor of its own, through a connection of its own (SQLite's WAL lets it read
/// while the writer commits), so that SQLite never runs on an event-loop thread.
struct ReportRoutes {
    typealias Context = ServerRequestContext

    let reader: any ReportSource
    /// The clock of the dashboard periods (`today`, `7d`, `30d` end now).
    let clock: any EventClock
    private let executor = StoreExecutor(label: "alstats-report")

    init(reader: any ReportSource, clock: any EventClock) {
        self.reader = reader
        self.clock = clock
    }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("api/report") { request, _ in
            let parameters = try ReportParameters(
                FormParameters.decode(request.uri.query), now: clock.nowMilliseconds())
            let report = try await read(parameters.query, comparison: parameters.comparison)
            return Response.text(ReportFormat.json.render(report), contentType: "application/json")
        }
    }

    /// The report of `query`, with `comparison`, read on the report's executor.
    /// - Throws: ``EventServerError`` (500) when the store cannot be read.
    func read(
        _ query: ReportQuery, comparison: ReportComparison? = nil
    ) async throws(EventServerError) -> Report {
        do {
            return try await executor.run { () async throws(StoreError) -> Report in
                try await reader.readReport(for: query, comparison: comparison)
            }
        } catch {
            throw EventServerError(.internalServerError, "the report could not be read: \(error.message)")
        }
    }

    /// The hosted link `slug`'s funnel per UTC day in the window of `query` (the bundled `link_funnel`).
    /// - Throws: ``EventServerError`` (500) when the store cannot be read.
    func linkDays(slug: String, query: ReportQuery) async throws(EventServerError) -> QueryResult {
        guard let linkFunnel = QueryCatalog.query(named: "link_funnel", dialect: reader.dialect) else {
            throw EventServerError(.internalServerError, "this alstats binary lacks its query link_funnel.sql")
        }
        var parameters = ["slug": slug]
        // Whole UTC days: the day the window starts in counts whole.
        if let since = query.since {
            parameters["since"] = String(since - ((since % 86_400_000) + 86_400_000) % 86_400_000)
        }
        if let until = query.until { parameters["until"] = String(until) }
        do {
            return try await executor.run { () async throws -> QueryResult in
                try await reader.runQuery(linkFunnel, parameters: parameters)
            }
        } catch {
            throw EventServerError(.internalServerError, "the link's days could not be read: \(error)")
        }
    }
}

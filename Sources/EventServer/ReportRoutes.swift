import EventReport
import EventStore
import EventStoreInterface
import Hummingbird
import MeasurementEvents

/// The report over HTTP (read role): `GET /api/report` (the JSON contract of docs/cli.md) and `GET /report`
/// (the HTML page), from the same ``ReportSource`` and renderers as `alstats report`, with its filters as
/// query parameters: `since`, `until`, `ref`, `referer_app`, `tz`, `top`.
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
            let report = try await read(ReportRoutes.apiQuery(FormParameters.decode(request.uri.query), clock: clock))
            return Response.text(ReportFormat.json.render(report), contentType: "application/json")
        }
    }

    /// The report of `query`, read on the report's executor.
    /// - Throws: ``EventServerError`` (500) when the store cannot be read.
    func read(_ query: ReportQuery) async throws(EventServerError) -> Report {
        do {
            return try await executor.run { () async throws(StoreError) -> Report in
                try await reader.readReport(for: query)
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

    /// The query of `/api/report`: ``query(_:)``, with the window of a dashboard period when the parameters name
    /// one (`period=today`, `7d`, `30d`, `all`: what the dashboard's script polls).
    static func apiQuery(_ parameters: Parameters, clock: any EventClock) throws(EventServerError) -> ReportQuery {
        guard parameters.get("period") != nil else { return try query(parameters) }
        let view = DashboardView(parameters: DashboardRoutes.dictionary(parameters))
        return try DashboardRoutes.query(parameters, view: view, now: clock.nowMilliseconds())
    }

    /// The report query of the parameters, as `alstats report` reads its options.
    /// - Throws: ``EventServerError`` (400) naming the parameter that is not valid.
    static func query(_ parameters: Parameters) throws(EventServerError) -> ReportQuery {
        let tz = parameters.get("tz") ?? "UTC"
        guard let zone = ReportTimeZone(tz) else {
            throw EventServerError(.badRequest, "tz '\(tz)' is not a time zone name (Europe/Paris, UTC) or an offset")
        }
        func time(_ name: String) throws(EventServerError) -> Int64? {
            guard let value = parameters.get(name) else { return nil }
            guard let milliseconds = zone.milliseconds(of: value) else {
                throw EventServerError(
                    .badRequest, "\(name) '\(value)' is not an RFC 3339 timestamp or a YYYY-MM-DD date")
            }
            return milliseconds
        }
        var top: Int?
        if let text = parameters.get("top") {
            guard let value = Int(text), value >= 0 else {
                throw EventServerError(.badRequest, "top must be 0 or more, not '\(text)'")
            }
            top = value
        }
        return ReportQuery(
            since: try time("since"), until: try time("until"), ref: parameters.get("ref"),
            refererApp: parameters.get("referer_app"), timeZone: zone, top: top)
    }
}

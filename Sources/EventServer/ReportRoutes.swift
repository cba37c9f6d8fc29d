import EventReport
import EventStore
import EventStoreInterface
import Hummingbird

/// The report over HTTP (read role): `GET /api/report` (the JSON contract of docs/cli.md) and `GET /report`
/// (the HTML page), from the same ``ReportSource`` and renderers as `alstats report`, with its filters as
/// query parameters: `since`, `until`, `ref`, `referer_app`, `source_host`, `link`, `tz`, `top`, and on
/// `/api/report` `compare=previous` (``ReportParameters``).
///
/// The report is read on an executor of its own, through a connection of its own (SQLite's WAL lets it read
/// while the writer commits), so that SQLite never runs on an event-loop thread.
struct ReportRoutes {
    typealias Context = ServerRequestContext

    let reader: any ReportSource
    private let executor = StoreExecutor(label: "alstats-report")

    init(reader: any ReportSource) {
        self.reader = reader
    }

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("api/report") { request, _ in
            let parameters = try ReportParameters(request.uri.queryParameters)
            let report = try await read(parameters.query, comparison: parameters.comparison)
            return Response.text(ReportFormat.json.render(report), contentType: "application/json")
        }
        group.get("report") { request, _ in
            let report = try await read(ReportRoutes.query(request.uri.queryParameters))
            return Response.text(ReportFormat.html.render(report), contentType: "text/html; charset=utf-8")
        }
    }

    private func read(
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

    /// The report query of the parameters, as `alstats report` reads its options.
    /// - Throws: ``EventServerError`` (400) naming the parameter that is not valid.
    static func query(_ parameters: Parameters) throws(EventServerError) -> ReportQuery {
        try ReportParameters(parameters).query
    }
}

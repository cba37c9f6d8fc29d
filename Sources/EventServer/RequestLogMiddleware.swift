import Hummingbird
import Logging
import MeasurementEvents

/// One log line per request (method, path, status, duration, events) and the request counter of
/// `/metrics`. Logs the path only: never a query, a header or a body, so a key never reaches a log.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            record(request, context: context, status: response.status.code, since: started)
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            record(request, context: context, status: status, since: started)
            throw error
        }
    }

    private func record(_ request: Request, context: Context, status: Int, since started: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - started
        let milliseconds = elapsed.inMilliseconds
        let route = context.endpointPath ?? "unmatched"
        metrics.request(route: route, status: status)
        var metadata: Logger.Metadata = [
            "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": "\(status)",
            "duration_ms": "\((milliseconds * 100).rounded() / 100)",
        ]
        if let events = context.tally.events { metadata["events"] = "\(events)" }
        context.logger.info("request", metadata: metadata)
    }
}

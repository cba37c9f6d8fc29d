import Hummingbird

/// `GET /healthz` (no key): 200 `ok` while the writer takes events and its last commit succeeded, else 503.
struct HealthRoutes {
    typealias Context = ServerRequestContext

    let writer: any EventSubmitting

    func addRoutes(to router: Router<Context>) {
        router.get("healthz") { _, _ in
            writer.isHealthy
                ? Response.text("ok\n", contentType: "text/plain")
                : Response.text("unavailable\n", contentType: "text/plain", status: .serviceUnavailable)
        }
    }
}

/// `GET /metrics` (read role): the Prometheus text exposition of ``ServerMetrics``.
struct MetricsRoutes {
    typealias Context = ServerRequestContext

    let metrics: ServerMetrics

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("metrics") { _, _ in
            Response.text(metrics.exposition(), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }
    }
}

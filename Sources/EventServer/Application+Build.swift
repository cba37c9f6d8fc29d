import EventReport
import EventStoreInterface
import HostedLinks
import Hummingbird
import Logging
import MeasurementEvents
import NIOCore
import ServiceLifecycle
import StoreOpening

/// The application `alstats serve` runs: its router, and the store's client, the writer, the hit recorder, the click
/// token recorder and upkeep it runs as services before the HTTP server (so that at shutdown the server drains first, then the
/// writer commits what is queued, and the store's client closes last).
public typealias EventServerApplication = Application<RouterResponder<ServerRequestContext>>

/// Builds the server on the SQLite file of ``EventServerConfiguration/databasePath``, opened with the one opener
/// of stores (`StoreOpener`, as `alstats serve` and the CLI open theirs): a write connection for the writer, a
/// read connection for the report and the hosted links; then builds as
/// ``buildApplication(configuration:store:logger:onServerRunning:)`` does.
///
/// ```swift
/// let app = try buildApplication(configuration: configuration, logger: Logger(label: "alstats"))
/// try await app.runService()   // until SIGTERM or SIGINT
/// ```
/// - Parameters:
///   - onServerRunning: called with the bound address (host and port) once the server listens.
/// - Throws: ``EventServerError`` when the store cannot be opened (its message says why).
public func buildApplication(
    configuration: EventServerConfiguration, logger: Logger,
    onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }
) throws(EventServerError) -> EventServerApplication {
    let store: OpenedStore
    do {
        store = try StoreOpener.openForServing(
            .sqlite(path: configuration.databasePath), durability: configuration.durability,
            redactor: configuration.redactor)
    } catch {
        throw EventServerError.store(error.message)
    }
    return try buildApplication(
        configuration: configuration, store: store, logger: logger, onServerRunning: onServerRunning)
}

/// Builds the server on a store opened for serving (`StoreOpener.openForServing`): the group-commit writer and
/// the routes grouped by concern. The application runs the store's own services first (the PostgreSQL client),
/// then the writer, the hit recorder and upkeep, then the HTTP server; before the server takes a request it
/// readies the store (connects and migrates) and records the public URL. At shutdown they stop in reverse order:
/// the server drains, the writer commits what it holds, the store's client closes last. The store's redaction and
/// durability are the opener's.
///
/// ```swift
/// let store = try StoreOpener.openForServing(try StoreLocation(parsing: url), durability: .normal)
/// let app = try buildApplication(configuration: configuration, store: store, logger: logger)
/// ```
/// - Parameters:
///   - onServerRunning: called with the bound address (host and port) once the server listens.
/// - Throws: ``EventServerError`` for an invalid public URL.
public func buildApplication(
    configuration: EventServerConfiguration, store: OpenedStore, logger: Logger,
    onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }
) throws(EventServerError) -> EventServerApplication {
    let publicURL = try publicURL(of: configuration)
    let metrics = ServerMetrics()
    let limiter = try KeyRateLimiter(
        keys: configuration.keys, limits: configuration.limits, clock: configuration.clock, metrics: metrics)
    let readiness = StoreReadiness()
    var app = assembleApplication(
        configuration: configuration, store: store, metrics: metrics, limiter: limiter, readiness: readiness,
        logger: logger,
        onServerRunning: onServerRunning)
    app.beforeServerStarts {
        do throws(StoreError) {
            try await store.prepare()
            if let publicURL { try await store.linkStore.recordPublicURL(publicURL) }
        } catch {
            throw EventServerError.store(error.message)
        }
        readiness.open()
    }
    return app
}

/// The public URL of the configuration, checked.
private func publicURL(of configuration: EventServerConfiguration) throws(EventServerError) -> LinkPublicURL? {
    guard let publicURL = configuration.publicURL else { return nil }
    guard let url = LinkPublicURL(publicURL) else {
        throw .configuration(
            "--public-url must be scheme://host[:port] (the pages are at /l/ of its root), not \(publicURL)")
    }
    return url
}

/// The writer, the routes and the application, on open stores; the HTTP server with the connection limits of
/// ``ServerLimits`` (``LimitedHTTP1Channel``); the retention's prunes and the alert notifier when they are
/// configured, which wait for `readiness` before they touch the store.
private func assembleApplication(
    configuration: EventServerConfiguration, store: OpenedStore, metrics: ServerMetrics, limiter: KeyRateLimiter,
    readiness: StoreReadiness, logger: Logger, onServerRunning: @escaping @Sendable (String) async -> Void
) -> EventServerApplication {
    let (backend, links, reports) = (store.backend, store.linkStore, store.reports)
    let writer = groupCommitWriter(on: backend, configuration: configuration, metrics: metrics)
    let recorder = LinkHitRecorder(writer: writer, logger: logger)
    let clicks = ClickTokenRecorder(
        store: store.clicks, window: configuration.deferredWindow, clock: configuration.clock, metrics: metrics,
        logger: logger, sweepInterval: configuration.clickSweepInterval)
    let upkeep = StoreUpkeep(
        backend: backend, interval: configuration.upkeepInterval, metrics: metrics, logger: logger)
    let catalog = LinkCatalog(store: links)
    let router = Router(context: ServerRequestContext.self)
    router.add(middleware: RequestLogMiddleware(metrics: metrics))
    HealthRoutes(writer: writer).addRoutes(to: router)
    let pages = LinkRoutes(
        catalog: catalog, recorder: recorder, clicks: clicks, hasher: VisitorHasher(),
        publicURL: configuration.publicURL,
        trustProxy: configuration.trustProxy, verifiedLinks: configuration.verifiedLinks, clock: configuration.clock)
    let writers = router.group("v1").add(middleware: AccessMiddleware(keys: configuration.keys, role: .write))
    CollectorRoutes(
        writer: writer, metrics: metrics, codec: NDJSONCodec(), clock: configuration.clock, limiter: limiter
    )
    .addRoutes(to: writers)
    DeferredRoutes(pages: pages, writer: writer, metrics: metrics).addRoutes(to: writers)
    let readers = router.group().add(middleware: AccessMiddleware(keys: configuration.keys, role: .read))
    let reportRoutes = ReportRoutes(reader: reports, clock: configuration.clock)
    reportRoutes.addRoutes(to: readers)
    DashboardRoutes(reports: reportRoutes, links: catalog).addRoutes(to: readers)
    MetricsRoutes(metrics: metrics).addRoutes(to: readers)
    pages.addRoutes(to: router)
    LinkStoreRoutes(pages: pages, logger: logger).addRoutes(to: router)
    LinkAdminRoutes(catalog: catalog).addRoutes(
        to: router.group().add(middleware: AccessMiddleware(keys: configuration.keys, role: .admin)))
    metrics.limits(configuration.limits)
    let gate = ConnectionGate(maximum: configuration.limits.maxConnections, metrics: metrics)
    let pruner = configuration.retention.map {
        RetentionService(
            period: $0, retention: store.retention, clock: configuration.retentionClock, metrics: metrics,
            logger: logger, readiness: readiness)
    }
    let notifier = configuration.alerts.map {
        AlertNotifier(
            configuration: $0, reports: reports, episodes: store.alertEpisodes, clock: configuration.alertClock,
            metrics: metrics, logger: logger, readiness: readiness)
    }
    return Application(
        router: router,
        server: LimitedHTTP1Channel.builder(limits: configuration.limits, gate: gate, metrics: metrics),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "alstats"),
        services: store.services + [writer, recorder, clicks, upkeep] + (pruner.map { [$0] } ?? [])
            + (notifier.map { [$0] } ?? []),
        onServerRunning: { channel in
            let address = channel.localAddress
            await onServerRunning("\(address?.ipAddress ?? configuration.host):\(address?.port ?? configuration.port)")
        },
        logger: logger
    )
}

/// The writer of `backend`'s own prepared events: the one place the server opens the backend's type, so that the
/// writer gets back, checked by the compiler, exactly what the backend prepared.
private func groupCommitWriter<Backend: EventBackend>(
    on backend: Backend, configuration: EventServerConfiguration, metrics: ServerMetrics
) -> any EventSubmitting & Service {
    GroupCommitWriter(store: backend, maximumQueuedEvents: configuration.maximumQueuedEvents, metrics: metrics)
}

/// Runs `app` until SIGTERM or SIGINT, then shuts down gracefully in reverse order of start: the HTTP server
/// stops accepting and finishes the requests in flight, the writer commits what they brought, the store
/// closes. After `gracePeriod` the rest is cancelled (the writer still commits what it holds). A `logOutput`
/// buffers the log while the server runs and writes its last lines after the server has stopped.
/// - Throws: what a service threw (the server could not bind its address, for example).
public func runUntilSignalled(
    _ app: EventServerApplication, logger: Logger, gracePeriod: Duration = .seconds(10),
    logOutput: BufferedLogOutput? = nil
) async throws {
    let services: [any Service] = (logOutput.map { [$0] } ?? []) + [app]
    var configuration = ServiceGroupConfiguration(
        services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
    configuration.maximumGracefulShutdownDuration = gracePeriod
    try await ServiceGroup(configuration: configuration).run()
}

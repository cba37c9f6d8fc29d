import EventReport
import EventStore
import EventStoreInterface
import HostedLinks
import Hummingbird
import Logging
import MeasurementEvents
import NIOCore
import ServiceLifecycle

/// The application `alstats serve` runs: its router, and the writer it runs as a service before the
/// HTTP server (so that at shutdown the server drains first, then the writer commits what is queued).
public typealias EventServerApplication = Application<RouterResponder<ServerRequestContext>>

/// Builds the server on the SQLite file of ``EventServerConfiguration/databasePath``: opens it (a write
/// connection for the writer, a read connection for the report), then builds as
/// ``buildApplication(configuration:backend:reports:logger:onServerRunning:)`` does.
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
    let store: EventStore
    let readStore: EventStore
    do {
        store = try EventStore(path: configuration.databasePath, options: .init(redactor: configuration.redactor))
        try store.setDurability(configuration.durability)
        readStore = try EventStore(
            path: configuration.databasePath, options: .init(create: false, integrityCheckLimit: 0))
    } catch {
        throw EventServerError.store(error.message)
    }
    if let url = try publicURL(of: configuration) {
        do { try store.recordPublicURL(url) } catch { throw EventServerError.store(error.message) }
    }
    return assembleApplication(
        configuration: configuration, backend: store, links: readStore, reports: ReportReader(store: readStore),
        logger: logger, onServerRunning: onServerRunning)
}

/// Builds the server on an open backend: records the public URL, then the group-commit writer and the routes
/// grouped by concern. The backend's redaction and durability are the opener's.
///
/// ```swift
/// let app = try await buildApplication(
///     configuration: configuration, backend: store, readBackend: readStore,
///     reports: ReportReader(store: readStore), logger: logger)
/// ```
/// - Parameters:
///   - backend: where the events are written.
///   - readBackend: where the hosted links are read and written: the same backend for a database server,
///     a second connection for SQLite (so that pages and reports never wait for the writer's lock).
///   - reports: where the report is read.
///   - onServerRunning: called with the bound address (host and port) once the server listens.
/// - Throws: ``EventServerError`` for an invalid public URL, or when it cannot be recorded.
public func buildApplication(
    configuration: EventServerConfiguration, backend: any EventBackend, readBackend: any EventBackend,
    reports: any ReportSource, logger: Logger, onServerRunning: @escaping @Sendable (String) async -> Void = { _ in }
) async throws(EventServerError) -> EventServerApplication {
    if let url = try publicURL(of: configuration) {
        do { try await backend.recordPublicURL(url) } catch { throw EventServerError.store(error.message) }
    }
    return assembleApplication(
        configuration: configuration, backend: backend, links: readBackend, reports: reports, logger: logger,
        onServerRunning: onServerRunning)
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

/// The writer, the routes and the application, on open stores.
private func assembleApplication(
    configuration: EventServerConfiguration, backend: any EventBackend, links: any EventBackend,
    reports: any ReportSource, logger: Logger, onServerRunning: @escaping @Sendable (String) async -> Void
) -> EventServerApplication {
    let metrics = ServerMetrics()
    let writer = GroupCommitWriter(
        store: backend, maximumQueuedEvents: configuration.maximumQueuedEvents, metrics: metrics)
    let recorder = LinkHitRecorder(writer: writer, logger: logger)
    let upkeep = StoreUpkeep(
        backend: backend, interval: configuration.upkeepInterval, metrics: metrics, logger: logger)
    let catalog = LinkCatalog(store: links)
    let router = Router(context: ServerRequestContext.self)
    router.add(middleware: RequestLogMiddleware(metrics: metrics))
    HealthRoutes(writer: writer).addRoutes(to: router)
    CollectorRoutes(writer: writer, metrics: metrics, codec: NDJSONCodec(), clock: configuration.clock)
        .addRoutes(to: router.group("v1").add(middleware: AccessMiddleware(keys: configuration.keys, role: .write)))
    let readers = router.group().add(middleware: AccessMiddleware(keys: configuration.keys, role: .read))
    ReportRoutes(reader: reports).addRoutes(to: readers)
    MetricsRoutes(metrics: metrics).addRoutes(to: readers)
    LinkRoutes(
        catalog: catalog, recorder: recorder, hasher: VisitorHasher(), publicURL: configuration.publicURL,
        trustProxy: configuration.trustProxy, verifiedLinks: configuration.verifiedLinks, clock: configuration.clock
    ).addRoutes(to: router)
    LinkAdminRoutes(catalog: catalog).addRoutes(
        to: router.group().add(middleware: AccessMiddleware(keys: configuration.keys, role: .admin)))
    return Application(
        router: router,
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "alstats"),
        services: [writer, recorder, upkeep],
        onServerRunning: { channel in
            let address = channel.localAddress
            await onServerRunning("\(address?.ipAddress ?? configuration.host):\(address?.port ?? configuration.port)")
        },
        logger: logger
    )
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

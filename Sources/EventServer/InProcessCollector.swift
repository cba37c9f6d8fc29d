import EventReport
import EventStoreInterface
import Foundation
import Logging
import ServiceLifecycle
import StoreOpening

/// A collector running inside the caller's process, on a port of its own, until ``stop()``: what
/// `alstats demo` sends its events to, and what a test or a tool can start without a second process.
///
/// ```swift
/// var configuration = EventServerConfiguration(databasePath: path, keys: AccessKeys(write: [key]))
/// configuration.port = 0   // any free port
/// let collector = try await InProcessCollector.start(configuration: configuration, logger: logger)
/// // POST to collector.eventsURL ...
/// try await collector.stop()   // finishes the requests in flight, commits them, closes the store
/// ```
public final class InProcessCollector: Sendable {
    /// The base URL the server listens at, such as `http://127.0.0.1:53117`.
    public let url: URL
    private let group: ServiceGroup
    private let running: Task<Void, any Error>

    /// The URL of its `POST /v1/events`.
    public var eventsURL: URL { url.appendingPathComponent("v1/events") }

    private init(url: URL, group: ServiceGroup, running: Task<Void, any Error>) {
        self.url = url
        self.group = group
        self.running = running
    }

    /// Builds the server on the SQLite file of the configuration
    /// (``buildApplication(configuration:logger:onServerRunning:)``), starts it, and returns once it listens.
    /// - Throws: ``EventServerError``: the store cannot be opened, or the server stopped before it listened
    ///   (its address could not be bound, for example).
    public static func start(configuration: EventServerConfiguration, logger: Logger)
        async throws(EventServerError) -> InProcessCollector
    {
        try await start(configuration: configuration, logger: logger) { onServerRunning throws(EventServerError) in
            try buildApplication(configuration: configuration, logger: logger, onServerRunning: onServerRunning)
        }
    }

    /// Builds the server on a store opened for serving (``buildApplication(configuration:store:logger:onServerRunning:)``),
    /// starts it, and returns once it listens. The caller closes the store after ``stop()``.
    /// - Throws: ``EventServerError``: the public URL is invalid, or the server stopped before it listened.
    public static func start(
        configuration: EventServerConfiguration, store: OpenedStore, logger: Logger
    ) async throws(EventServerError) -> InProcessCollector {
        try await start(configuration: configuration, logger: logger) { onServerRunning throws(EventServerError) in
            try buildApplication(
                configuration: configuration, store: store, logger: logger, onServerRunning: onServerRunning)
        }
    }

    /// Builds the application with `build`, runs it in a service group, and returns once it listens.
    private static func start(
        configuration: EventServerConfiguration, logger: Logger,
        build: (@escaping @Sendable (String) async -> Void) async throws(EventServerError) -> EventServerApplication
    ) async throws(EventServerError) -> InProcessCollector {
        let (addresses, listening) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let app = try await build { address in
            listening.yield(address)
            listening.finish()
        }
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: [app], logger: logger))
        let running = Task {
            defer { listening.finish() }
            try await group.run()
        }
        var iterator = addresses.makeAsyncIterator()
        guard let address = await iterator.next(), let url = URL(string: "http://\(address)") else {
            await group.triggerGracefulShutdown()
            let reason: String
            do {
                try await running.value
                reason = "it stopped"
            } catch {
                reason = "\(error)"
            }
            throw EventServerError.configuration(
                "the collector on \(configuration.host):\(configuration.port) did not start: \(reason)")
        }
        return InProcessCollector(url: url, group: group, running: running)
    }

    /// Shuts down gracefully: stops accepting connections, finishes the requests in flight, commits what they
    /// brought, closes the store; returns when all of that is done.
    /// - Throws: what the server threw while it ran.
    public func stop() async throws {
        await group.triggerGracefulShutdown()
        try await running.value
    }
}

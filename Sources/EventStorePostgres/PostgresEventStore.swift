import EventStoreInterface
import Foundation
import Logging
import MeasurementEvents
import PostgresNIO
import ServiceLifecycle

/// The PostgreSQL event store: the same events, rollups, completeness, links and report rows as the SQLite
/// `SQLiteEventStore`, on a PostgreSQL server (15 or later) shared by several `alstats` processes.
///
/// Creating a store starts nothing. Its connection pool runs in ``run()``: as a `Service` in the application's
/// `ServiceGroup` (listed before what uses the store, so that it stops last), or, for a program without one, in a
/// task of the store's own (``open(url:options:)``). ``open()`` then connects and applies the pending migrations
/// of the top-level `Migrations/postgres/` under an advisory lock (two processes starting at once apply each
/// once). Events are partitioned by month (docs/design/postgres-layout.md); every batch is written in one transaction
/// with its rollups, so several writers at once give exact rollups and store each id once.
///
/// ```swift
/// let store = try await PostgresEventStore.open(url: "postgres://alstats@db.example.com/alstats")
/// let stored = try await store.writeBatches([events])   // [new events of the batch]
/// let rows = try await store.rows(for: ReportQuery())   // what ReportBuilder turns into the report
/// await store.close()
/// ```
public final class PostgresEventStore: Service, Sendable {
    /// How a store is opened.
    public struct Options: Sendable {
        /// The redactor applied to every event before it is written (the SQLite store's default).
        public var redactor: Redactor
        /// The most connections the store opens to the server at once.
        public var maximumConnections: Int
        /// How long opening waits for a first connection: a server that refuses, does not answer or does not
        /// accept the user fails the open after it (the client's pool would retry for ever).
        public var connectTimeout: Duration
        /// The clock of what the store stamps with the time it writes it (completeness counts, links); tests set it.
        public var clock: any EventClock

        /// Creates options; by default the default secret keys are redacted, up to 8 connections are used, and
        /// opening gives up after 10 seconds without a connection.
        public init(
            redactor: Redactor = Redactor(), maximumConnections: Int = 8, connectTimeout: Duration = .seconds(10),
            clock: any EventClock = SystemEventClock()
        ) {
            self.redactor = redactor
            self.maximumConnections = maximumConnections
            self.connectTimeout = connectTimeout
            self.clock = clock
        }
    }

    /// The server and database, as given but without a password: how errors name the store.
    public let location: String
    /// The most connections the pool opens (``Options/maximumConnections``, at least 1).
    let connectionLimit: Int

    let client: PostgresClient
    let redactor: Redactor
    /// The clock of the times the store stamps (``Options/clock``).
    let clock: any EventClock
    let logger = Logger(label: "alstats.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
    /// The month partitions of `events` known to exist (their start, ms since the Unix epoch).
    let partitions = StateLock<Set<Int64>>([])
    /// The retention horizon as the last write or prune read it (`nil`: never pruned, or not read yet): a write makes
    /// no partition for the months before it. Each write reads the horizon again in its transaction, which decides.
    let knownHorizon = StateLock<Int64?>(nil)
    /// The partitions of `events` written since their time index's new ranges were last summarised
    /// (``summarizeTimeIndex(lockTimeout:)``), by name.
    let partitionsToSummarize = StateLock<Set<String>>([])
    /// The summaries of the time index an ingest starts while its writes go on (``summarizeWhileIngesting(after:)``).
    let ingestSummaries = StateLock<IngestSummaries>(IngestSummaries())
    /// Whether the last claim of ids found one already stored: the next write then claims with `ON CONFLICT` at
    /// once instead of trying `COPY` first (a stream of retried batches would fail every `COPY`), and goes back to
    /// `COPY` after a claim that found none.
    let claimsMeetStoredIDs = StateLock<Bool>(false)
    /// The task running the client's connection pool when the store runs it itself (``open(url:options:)``),
    /// until ``close()``.
    private let runner = StateLock<Task<Void, Never>?>(nil)
    /// How long ``open()`` waits for a first connection (``Options/connectTimeout``).
    let connectTimeout: Duration
    /// The server's host and port, for ``failIfNothingListens()``.
    let host: String
    let port: Int

    /// A store of the database at `url` (`postgres://user[:password]@host[:port]/database[?sslmode=disable]`). It
    /// starts nothing and connects to nothing: run its pool (``run()``) and then ``open()`` it, or use
    /// ``open(url:options:)``, which does both.
    /// - Throws: ``StoreError`` `.invalidLocation` for a URL that is not a PostgreSQL URL.
    public convenience init(url: String, options: Options = Options()) throws(StoreError) {
        self.init(location: try PostgresLocation(url: url), options: options)
    }

    /// A store of the database at `location` (`--database`, parsed); like ``init(url:options:)`` it starts nothing.
    public init(location server: PostgresLocation, options: Options = Options()) {
        let parsed = PostgresServerURL(server)
        location = parsed.redacted
        redactor = options.redactor
        clock = options.clock
        connectTimeout = options.connectTimeout
        host = server.host
        port = server.port
        var configuration = parsed.configuration
        connectionLimit = max(1, options.maximumConnections)
        configuration.options.maximumConnections = connectionLimit
        client = PostgresClient(configuration: configuration)
    }

    /// Runs the connection pool until the task is cancelled or, in a `ServiceGroup`, until graceful shutdown
    /// reaches the store (after everything listed after it has stopped). Run it once.
    public func run() async {
        await cancelWhenGracefulShutdown { await self.client.run() }
    }

    /// Connects (failing at once when nothing listens at the server's address, else giving up after
    /// ``Options/connectTimeout``) and applies pending migrations. The pool must be
    /// running (``run()``): in a server, call it before the server takes requests (Hummingbird's
    /// `beforeServerStarts`).
    /// - Throws: ``StoreError`` naming the server: `.newerSchema` for a database migrated by a newer alstats, `.io`
    ///   when the server cannot be reached.
    public func open() async throws(StoreError) {
        // Only reaching the server is timed: a migration may wait for another process's (which holds the lock of
        // migrations while it applies them) or run long on a large database, and says so itself if it fails.
        try await PostgresEventStore.within(connectTimeout, location: location) { () async throws(StoreError) in
            try await self.failIfNothingListens()  // a refused connection at once, not after the timeout
            _ = try await self.withConnection(doing: "connecting") { connection in
                try await connection.query("SELECT 1", logger: self.logger)
            }
        }
        _ = try await withConnection(doing: "applying migrations") { connection in
            try await PostgresMigrator(location: self.location).migrate(connection, logger: self.logger)
            _ = try await self.rawEventsSince(on: connection)  // the months the writes need not make
        }
    }

    /// A store of the database at `url`, its pool running in a task of the store's own until ``close()``, connected
    /// and migrated (``open()``): for a program without a `ServiceGroup` (a command-line tool, a test).
    /// - Throws: ``StoreError`` naming the server: `.invalidLocation` for a URL that is not a PostgreSQL URL,
    ///   `.newerSchema` for a database migrated by a newer alstats, `.io` when the server cannot be reached.
    public static func open(url: String, options: Options = Options()) async throws(StoreError) -> PostgresEventStore {
        try await open(PostgresEventStore(url: url, options: options))
    }

    /// ``open(url:options:)`` of a parsed `location`.
    /// - Throws: ``StoreError`` naming the server: `.newerSchema` for a database migrated by a newer alstats, `.io`
    ///   when the server cannot be reached.
    public static func open(
        location: PostgresLocation, options: Options = Options()
    ) async throws(StoreError) -> PostgresEventStore {
        try await open(PostgresEventStore(location: location, options: options))
    }

    /// Runs the pool of `store` in a task of the store's own and opens it.
    private static func open(_ store: PostgresEventStore) async throws(StoreError) -> PostgresEventStore {
        store.runner.withLock { $0 = Task { await store.client.run() } }
        do throws(StoreError) {
            try await store.open()
        } catch {
            await store.close()
            throw error
        }
        return store
    }

    /// Finishes what the store started (an ingest's summaries of the time index) and, when the store runs its own
    /// pool (``open(url:options:)``), closes every connection; the store may not be used afterwards. A pool run as
    /// a service stops with its `ServiceGroup`.
    public func close() async {
        await endIngestSummaries()  // an ingest that failed left its summary under way, if any
        let task = runner.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    /// The schema version of the database (the latest migration applied).
    public var schemaVersion: Int {
        get async throws(StoreError) {
            try await withConnection(doing: "reading the schema version") { connection in
                try await PostgresMigrator(location: self.location).currentVersion(connection, logger: self.logger)
            }
        }
    }

    /// Runs `body`, failing with `.io` when it has not finished within `limit`: the pool waits for a connection
    /// for ever, retrying a server that refuses or rejects the user.
    private static func within(
        _ limit: Duration, location: String, _ body: @escaping @Sendable () async throws(StoreError) -> Void
    ) async throws(StoreError) {
        let outcome = await withTaskGroup(of: Result<Void, StoreError>?.self) { group in
            group.addTask {
                do throws(StoreError) {
                    return .success(try await body())
                } catch {
                    return .failure(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        guard let outcome else {
            throw StoreError(
                .io, path: location,
                "\(location): no connection within \(limit): is the server running, and are its host, port, user, "
                    + "password and database right?")
        }
        try outcome.get()
    }

    /// The schema version this binary migrates databases to.
    public static var latestSchemaVersion: Int { PostgresMigrator.latestVersion }

    /// Runs `body` with a connection of the pool; any error becomes a ``StoreError`` saying what was being done, and
    /// `lost`: what a failure leaves undone.
    func withConnection<Result: Sendable>(
        doing what: String, lost: String = nothingStored, _ body: (PostgresConnection) async throws -> Result
    ) async throws(StoreError) -> Result {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw storeError(error, doing: what, lost: lost)
        }
    }

    /// Runs `body` in a transaction of its own on one connection: committed when it returns, rolled back when it
    /// throws (or the connection is lost, when the server rolls it back).
    func inTransaction<Result: Sendable>(
        doing what: String, lost: String = nothingStored, _ body: (PostgresConnection) async throws -> Result
    ) async throws(StoreError) -> Result {
        try await withConnection(doing: what, lost: lost) { connection in
            try await connection.query("BEGIN", logger: self.logger)
            do {
                let result = try await body(connection)
                try await connection.query("COMMIT", logger: self.logger)
                return result
            } catch {
                // A closed connection has nothing to roll back (the server rolled it back when it went away); a
                // query on it is not sent.
                if !connection.isClosed { _ = try? await connection.query("ROLLBACK", logger: self.logger) }
                throw error
            }
        }
    }

    /// Runs `sql` with `binds` and collects its rows with `read`.
    func rows<Row>(
        _ sql: String, _ binds: PostgresBindings = PostgresBindings(), on connection: PostgresConnection,
        _ read: (PostgresRandomAccessRow) throws -> Row
    ) async throws -> [Row] {
        var result: [Row] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger) {
            result.append(try read(row.makeRandomAccess()))
        }
        return result
    }

    /// Runs `sql` with `binds`, discarding any rows.
    func run(_ sql: String, _ binds: PostgresBindings = PostgresBindings(), on connection: PostgresConnection)
        async throws
    {
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    /// What a failed write leaves undone, for its error's message.
    static let nothingStored = "nothing of it was stored"

    /// A ``StoreError`` for `error`, naming the server, what was being done and what was `lost`.
    func storeError(_ error: any Error, doing what: String, lost: String = nothingStored) -> StoreError {
        if let error = error as? StoreError { return error }
        guard let error = error as? PSQLError else {
            return StoreError(.io, path: location, "PostgreSQL at \(location) failed while \(what): \(error)")
        }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?"
            let message = error.serverInfo?[.message] ?? "no message"
            return StoreError(
                .io, path: location,
                "PostgreSQL at \(location) refused \(what) (SQLSTATE \(state)): \(message); \(lost)")
        case .serverClosedConnection, .connectionError, .uncleanShutdown, .clientClosedConnection, .poolClosed:
            return StoreError(
                .io, path: location,
                "lost the connection to PostgreSQL at \(location) while \(what): \(lost); "
                    + "check that the server is up and try again")
        default:
            return StoreError(.io, path: location, "PostgreSQL at \(location) failed while \(what): \(error.code)")
        }
    }
}

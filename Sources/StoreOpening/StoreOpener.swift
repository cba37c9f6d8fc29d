import EventIngest
import EventStoreInterface
import EventStoreSQLite
import MeasurementEvents

#if Server
import EventStorePostgres
import ServiceLifecycle
#endif

/// What a program does with the database, which decides how it is opened.
public enum StoreAccess: Sendable {
    /// Writes: creates the database when missing, applies pending migrations.
    case create
    /// Writes to an existing database only (`links delete`).
    case existing
    /// Only reads: an existing database, without SQLite's full integrity check (it reads the whole file, 0.8 s
    /// for 190 MB; a damaged page met is still an error; the header is checked either way, and the full check
    /// still runs before any pending migration).
    case read
    /// A server (`alstats serve`, the in-process collector): creates the database when missing, commits with
    /// `durability`, and opens a second connection for the report and the hosted links where the backend has one
    /// per connection.
    case serve(StoreDurability)

    /// Whether the database is created when it does not exist.
    var creates: Bool {
        switch self {
        case .create, .serve: true
        case .existing, .read: false
        }
    }
}

/// An open store: where events are written, hosted links kept, NDJSON ingested and the report read, and what must
/// run while it is used.
public struct OpenedStore: Sendable {
    /// Where events are written.
    public let backend: any EventBackend
    /// Where the hosted links and their public URLs are kept: a second connection for a served SQLite file, else
    /// the backend itself.
    public let linkStore: any LinkStore
    /// Where the report and the bundled queries are read.
    public let reports: any ReportSource

    /// How NDJSON files are imported: the SQLite store's own ingest, the generic one with `COPY` rows on PostgreSQL.
    public let ingester: any NDJSONIngester
    /// Where `alstats serve` keeps its alert episodes (the writing connection for SQLite).
    public let alertEpisodes: any AlertEpisodeStore
    /// Where the install path's click tokens are minted, claimed and deleted (docs/install.md): the writing backend.
    public let clicks: any ClickTokenStore
    /// The completeness table row by row, for `alstats backup` and `alstats restore`: the backend itself.
    public let completenessRecords: any CompletenessRecords
    /// How raw events are pruned (`alstats prune`, the `retention` of `alstats serve`): the backend itself (an SQLite
    /// prune opens a connection of its own beside the writer's).
    public let retention: any EventRetention
    #if Server
    /// What must run while the store is used, for a store opened by
    /// ``StoreOpener/openForServing(_:durability:redactor:)``: the PostgreSQL client's connection pool. Run them in
    /// the application's `ServiceGroup` before the services that use the store (so that they stop after them), and
    /// ``prepare()`` the store before taking requests. Empty for SQLite.
    public fileprivate(set) var services: [any Service] = []
    #endif
    /// Connects and migrates once ``services`` run (PostgreSQL); nothing for SQLite, which opened at once.
    fileprivate var preparing: @Sendable () async throws(StoreError) -> Void = {}
    /// What ``close()`` closes besides the backend (a served SQLite file's second connection).
    fileprivate var others: [any EventBackend] = []

    /// Readies a store opened for serving: connects and applies pending migrations (PostgreSQL, whose pool must be
    /// running by then); nothing for SQLite.
    /// - Throws: ``StoreError`` when the server cannot be reached or its database cannot be migrated.
    public func prepare() async throws(StoreError) {
        try await preparing()
    }

    /// Closes the backends (the second connection first, when there is one).
    /// - Throws: ``StoreError`` when what a backend held could not be committed.
    public func close() async throws(StoreError) {
        for other in others { try await other.close() }
        try await backend.close()
    }
}

/// The one place that picks and opens a backend for a ``StoreLocation``: the CLI's commands, `alstats serve` and
/// the in-process collector all open their stores here.
///
/// ```swift
/// let store = try await StoreOpener.open(try StoreLocation(parsing: "alstats.sqlite"), .read)
/// let report = try await store.reports.readReport(for: ReportQuery())
/// try await store.close()
/// ```
public enum StoreOpener {
    /// Whether this build has the PostgreSQL backend (the `Server` package trait).
    public static var hasPostgres: Bool {
        #if Server
        true
        #else
        false
        #endif
    }

    /// Opens `location` for `access`, ready to use: a PostgreSQL store runs its pool in a task of its own until
    /// ``OpenedStore/close()`` (for a program without a `ServiceGroup`).
    /// `packFields` (the default) packs an SQLite file's long fields once it holds 4,096 events
    /// (`SQLiteEventStore.Options.packFields`); PostgreSQL ignores it.
    /// - Throws: ``StoreError``: `.missing`, `.notADatabase`, `.corrupt`, `.newerSchema`, `.io`; `.invalidLocation`
    ///   for PostgreSQL in a build without it (``hasPostgres``).
    public static func open(
        _ location: StoreLocation, _ access: StoreAccess, redactor: Redactor = Redactor(), packFields: Bool = true
    ) async throws(StoreError) -> OpenedStore {
        switch location {
        case .sqlite(let path):
            return try openSQLite(path: path, access, redactor: redactor, packFields: packFields)
        case .postgres(let server):
            #if Server
            // One client (a pool of connections) serves writes, links and the report alike.
            let store = try await PostgresEventStore.open(location: server, options: .init(redactor: redactor))
            return OpenedStore(
                backend: store, linkStore: store, reports: store, ingester: store, alertEpisodes: store, clicks: store,
                completenessRecords: store, retention: store)
            #else
            throw StoreError(
                .invalidLocation, path: server.description,
                "\(server.description): this alstats was built without the PostgreSQL backend; give an SQLite file, or "
                    + "use a build with PostgreSQL")
            #endif
        }
    }

    #if Server
    /// Opens `location` for a server without starting anything: the store's long-running parts are in
    /// ``OpenedStore/services`` for the application's `ServiceGroup`, and ``OpenedStore/prepare()`` connects and
    /// migrates once they run. An SQLite file is opened (and migrated) at once.
    /// - Throws: ``StoreError`` for an SQLite file that cannot be opened, or a PostgreSQL URL that is not valid.
    public static func openForServing(
        _ location: StoreLocation, durability: StoreDurability, redactor: Redactor = Redactor()
    ) throws(StoreError) -> OpenedStore {
        switch location {
        case .sqlite(let path):
            return try openSQLite(path: path, .serve(durability), redactor: redactor)
        case .postgres(let server):
            let store = PostgresEventStore(location: server, options: .init(redactor: redactor))
            return OpenedStore(
                backend: store, linkStore: store, reports: store, ingester: store, alertEpisodes: store, clicks: store,
                completenessRecords: store, retention: store,
                services: [store],
                preparing: { () async throws(StoreError) in try await store.open() })
        }
    }
    #endif

    private static func openSQLite(
        path: String, _ access: StoreAccess, redactor: Redactor, packFields: Bool = true
    ) throws(StoreError) -> OpenedStore {
        switch access {
        case .create, .existing, .read:
            var options = SQLiteEventStore.Options(create: access.creates, redactor: redactor)
            options.packFields = packFields
            if case .read = access { options.integrityCheckLimit = 0 }
            let store = try SQLiteEventStore(path: path, options: options)
            return OpenedStore(
                backend: store, linkStore: store, reports: ReportReader(store: store), ingester: store,
                alertEpisodes: store, clicks: store,
                completenessRecords: store, retention: store)
        case .serve(let durability):
            let writer = try SQLiteEventStore(path: path, options: .init(redactor: redactor))
            try writer.setDurability(durability)
            let reader = try SQLiteEventStore(path: path, options: .init(create: false, integrityCheckLimit: 0))
            return OpenedStore(
                backend: writer, linkStore: reader, reports: ReportReader(store: reader), ingester: writer,
                alertEpisodes: writer, clicks: writer, completenessRecords: writer, retention: writer, others: [reader])
        }
    }
}

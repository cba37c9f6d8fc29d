import EventReport
import EventStore
import EventStoreInterface

#if !ALSTATS_CORE_ONLY
    import EventStorePostgres
#endif

/// What a command does with the database, which decides how it is opened.
enum StoreAccess {
    /// Writes: creates the database when missing, applies pending migrations.
    case create
    /// Writes to an existing database only (`links delete`).
    case existing
    /// Only reads: an existing database, without SQLite's full integrity check (it reads the whole file, 0.8 s
    /// for 190 MB; a damaged page met is still an error, exit 74; the header is checked either way, and the
    /// full check still runs before any pending migration).
    case read
    /// `alstats serve`: creates the database when missing, commits with `durability`, and opens a second,
    /// reading connection for the report and the hosted links where the backend has one per connection.
    case serve(StoreDurability)
}

/// An open store: the backend, where the report and hosted links are read, and the report's source.
struct OpenedStore {
    /// Where events and links are written.
    let backend: any EventBackend
    /// Where the server reads the hosted links: a second connection for SQLite, else ``backend``.
    let readBackend: any EventBackend
    /// Where the report and the bundled queries are read.
    let reports: any ReportSource

    /// Closes the backends (the reading one first when it is another); a failure is exit 74.
    func close() async throws(CLIFailure) {
        do throws(StoreError) {
            if readBackend !== backend { try await readBackend.close() }
            try await backend.close()
        } catch {
            throw CLIFailure(error)
        }
    }
}

extension DatabaseOptions {
    /// Where `--database` points.
    /// - Throws: ``CLIFailure``, exit 64, for a location that is neither a path nor a valid PostgreSQL URL.
    var location: StoreLocation {
        get throws(CLIFailure) {
            do {
                return try StoreLocation(parsing: path)
            } catch {
                throw CLIFailure(error)
            }
        }
    }

    /// Opens the database of `--database` for `access`: the one place the CLI picks a backend.
    /// - Throws: ``CLIFailure`` with the exit status of the error (66 missing, 74 unreadable or damaged, 64 an
    ///   invalid location, 78 a backend this build does not have).
    func openBackend(_ access: StoreAccess) async throws(CLIFailure) -> OpenedStore {
        switch try location {
        case .sqlite(let path):
            return try DatabaseOptions.openSQLite(path: path, access)
        case .postgres(let server):
            #if ALSTATS_CORE_ONLY
                throw CLIFailure(
                    ExitStatus.config,
                    "\(server): this alstats was built without the PostgreSQL backend; give an SQLite file with "
                        + "--database, or use a build with PostgreSQL")
            #else
                // One client (a pool of connections) serves writes, links and the report alike.
                do throws(StoreError) {
                    let store = try await PostgresEventStore(url: path)
                    return OpenedStore(backend: store, readBackend: store, reports: store)
                } catch {
                    throw CLIFailure(error)
                }
            #endif
        }
    }

    /// The SQLite file of `--database`, for the commands that only work on one (`push`, `demo`).
    /// - Throws: ``CLIFailure``, exit 64, naming `command`, for a PostgreSQL URL.
    func sqlitePath(for command: String) throws(CLIFailure) -> String {
        guard case .sqlite(let path) = try location else {
            throw CLIFailure(
                ExitStatus.usage, "alstats \(command) works on an SQLite file: give a file path with --database")
        }
        return path
    }

    private static func openSQLite(path: String, _ access: StoreAccess) throws(CLIFailure) -> OpenedStore {
        do throws(StoreError) {
            switch access {
            case .create, .existing, .read:
                var options = EventStore.Options(create: access.creates)
                if case .read = access { options.integrityCheckLimit = 0 }
                let store = try EventStore(path: path, options: options)
                return OpenedStore(backend: store, readBackend: store, reports: ReportReader(store: store))
            case .serve(let durability):
                let store = try EventStore(path: path)
                try store.setDurability(durability)
                let reader = try EventStore(path: path, options: .init(create: false, integrityCheckLimit: 0))
                return OpenedStore(backend: store, readBackend: reader, reports: ReportReader(store: reader))
            }
        } catch {
            throw CLIFailure(error)
        }
    }
}

extension StoreAccess {
    /// Whether the database is created when it does not exist.
    var creates: Bool {
        switch self {
        case .create, .serve: true
        case .existing, .read: false
        }
    }
}

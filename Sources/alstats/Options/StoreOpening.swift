import EventStoreInterface
import EventStoreSQLite
import StoreOpening

extension DatabaseChoice {
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

    /// Opens the database of `--database` for `access` with the one opener (`StoreOpener`).
    /// - Throws: ``CLIFailure`` with the exit status of the error (66 missing, 74 unreadable or damaged, 64 an
    ///   invalid location, 78 a backend this build does not have).
    func openBackend(_ access: StoreAccess, packFields: Bool = true) async throws(CLIFailure) -> OpenedStore {
        let location = try location
        if case .postgres(let server) = location, !StoreOpener.hasPostgres {
            throw CLIFailure(
                ExitStatus.config,
                "\(server): this alstats was built without the PostgreSQL backend; give an SQLite file with "
                    + "--database, or use a build with PostgreSQL")
        }
        do throws(StoreError) {
            return try await StoreOpener.open(location, access, packFields: packFields)
        } catch {
            throw CLIFailure(error)
        }
    }

    #if Server
    /// Opens the database of `--database` for `alstats serve` (``StoreOpener/openForServing(_:durability:redactor:)``):
    /// an SQLite file at once; a PostgreSQL store's client runs in the server's `ServiceGroup`, which connects
    /// and migrates before it takes requests.
    /// - Throws: ``CLIFailure`` with the exit status of the error (as ``openBackend(_:)``).
    func openForServing(_ durability: StoreDurability) throws(CLIFailure) -> OpenedStore {
        let location = try location
        do throws(StoreError) {
            return try StoreOpener.openForServing(location, durability: durability)
        } catch {
            throw CLIFailure(error)
        }
    }
    #endif

    /// The SQLite file of `--database`, for the commands that only work on one (`push`, `demo`).
    /// - Throws: ``CLIFailure``, exit 64, naming `command`, for a PostgreSQL URL.
    func sqlitePath(for command: String) throws(CLIFailure) -> String {
        guard case .sqlite(let path) = try location else {
            throw CLIFailure(
                ExitStatus.usage, "alstats \(command) works on an SQLite file: give a file path with --database")
        }
        return path
    }
}

extension OpenedStore {
    /// Closes the backends (``OpenedStore/close()``); a failure is exit 74.
    func finish() async throws(CLIFailure) {
        do throws(StoreError) {
            try await close()
        } catch {
            throw CLIFailure(error)
        }
    }
}

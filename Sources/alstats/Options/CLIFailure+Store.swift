import EventStore

extension CLIFailure {
    /// The exit status and message of a store error: 66 for a database that does not exist, 74 otherwise.
    /// The library's remedy is worded here, with the options of this CLI.
    init(_ error: StoreError) {
        let message =
            switch error.remedy {
            case .none: error.message
            case .anotherPath:
                error.message + (error.kind == .readOnly ? ", or" : ":") + " choose another path with --database"
            case .existingOrNewDatabase:
                error.message + ": give an existing file with --database, or create one with `alstats migrate`"
            }
        self.init(error.kind == .missing ? ExitStatus.noInput : ExitStatus.ioError, message)
    }

    /// The exit status and message of an ingest error: 66 missing, 74 unreadable, 65 invalid data.
    init(_ error: IngestError) {
        switch error.kind {
        case .missingFile: self.init(ExitStatus.noInput, error.description)
        case .unreadable: self.init(ExitStatus.ioError, error.description)
        case .invalidLine: self.init(ExitStatus.dataError, error.description)
        }
    }
}

/// Runs a store call; a ``StoreError`` becomes the CLI's exit status and message (``CLIFailure/init(_:)-StoreError``).
func mappingStoreErrors<Value>(_ body: () throws -> Value) throws -> Value {
    do {
        return try body()
    } catch let error as StoreError {
        throw CLIFailure(error)
    }
}

extension DatabaseOptions {
    /// Opens the store, creating the file when `create` (writing commands), mapping errors to exit statuses.
    ///
    /// Commands that only read (`readOnly`) skip the full `PRAGMA quick_check`, which reads the whole file
    /// (0.8 s for 190 MB): they write nothing, and a damaged page they meet is still an error (exit 74). The
    /// header is checked either way, and the full check still runs before any pending migration.
    func openStore(create: Bool, readOnly: Bool = false) throws -> EventStore {
        do {
            var options = EventStore.Options(create: create)
            if readOnly { options.integrityCheckLimit = 0 }
            return try EventStore(path: path, options: options)
        } catch {
            throw CLIFailure(error)
        }
    }
}

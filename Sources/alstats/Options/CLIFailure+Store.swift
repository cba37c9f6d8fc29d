import EventStore

extension CLIFailure {
    /// The exit status and message of a store error: 66 for a database that does not exist, 74 otherwise.
    init(_ error: StoreError) {
        self.init(error.kind == .missing ? ExitStatus.noInput : ExitStatus.ioError, error.message)
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

extension DatabaseOptions {
    /// Opens the store, creating the file when `create` (writing commands), mapping errors to exit statuses.
    func openStore(create: Bool) throws -> EventStore {
        do {
            return try EventStore(path: path, options: EventStore.Options(create: create))
        } catch {
            throw CLIFailure(error)
        }
    }
}

import EventIngest
import EventStoreInterface

extension CLIFailure {
    /// The exit status and message of a store error: 66 for a database that does not exist, 64 for a
    /// `--database` that is not a location, 74 otherwise.
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
        let status =
            switch error.kind {
            case .missing: ExitStatus.noInput
            case .invalidLocation: ExitStatus.usage
            default: ExitStatus.ioError
            }
        self.init(status, message)
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

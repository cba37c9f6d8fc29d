import EventStoreInterface
import SQLiteSupport

extension StoreError {
    /// The store's error for a failure of the SQLite file beneath it, kind for kind, with its message and remedy.
    ///
    /// ```swift
    /// do { _ = try StoreEventLines(path: "phone.sqlite") } catch { throw CLIFailure(StoreError(error)) }
    /// ```
    public init(_ error: SQLiteError) {
        let kind: Kind =
            switch error.kind {
            case .notADatabase: .notADatabase
            case .corrupt: .corrupt
            case .newerSchema: .newerSchema
            case .missing: .missing
            case .readOnly: .readOnly
            case .io: .io
            }
        let remedy: Remedy =
            switch error.remedy {
            case .none: .none
            case .anotherPath: .anotherPath
            case .existingOrNewDatabase: .existingOrNewDatabase
            }
        self.init(kind, path: error.path, error.message, remedy: remedy)
    }
}

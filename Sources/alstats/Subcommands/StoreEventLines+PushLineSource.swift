import EventStoreSQLite
import EventUpload

/// `alstats push` reads an alstats database's events through SQLiteEventStore's reader: the CLI knows both modules, the
/// uploader knows no store (docs/design/architecture.md).
extension StoreEventLines: PushLineSource {}

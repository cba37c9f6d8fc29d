import SQLiteSupport

/// The events `alstats push` sends (``EventPusher``): a database's events as their NDJSON lines, in arrival order,
/// each under a key that grows with arrival (the row id of an alstats store).
///
/// EventUpload knows no store: the module that knows both the uploader and the store supplies the lines. For an
/// alstats database that is SQLiteEventStore's `StoreEventLines`, which the CLI's `alstats push` hands to the pusher.
///
/// ```swift
/// let pusher = try EventPusher(source: lines, collector: url, writeKey: key)   // lines: any PushLineSource
/// ```
public protocol PushLineSource: Sendable {
    /// The database file the lines come from: the pusher keeps its cursor in it (`push_cursor`).
    var path: String { get }

    /// Calls `body` with the line (without newline) and the key of up to `limit` events whose key is greater than
    /// `key`, in key order, until `body` returns `false`.
    /// - Throws: ``SQLiteError`` when the database cannot be read.
    func forEachLine(
        after key: Int64, limit: Int, _ body: (_ line: [UInt8], _ key: Int64) throws(SQLiteError) -> Bool
    ) throws(SQLiteError)

    /// The number of events whose key is greater than `key` and at most `upTo`.
    /// - Throws: ``SQLiteError`` when the database cannot be read.
    func count(after key: Int64, upTo: Int64) throws(SQLiteError) -> Int
}

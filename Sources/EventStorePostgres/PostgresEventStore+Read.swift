import EventStoreInterface
import MeasurementEvents
import PostgresNIO

extension PostgresEventStore {
    /// The completeness counts of every day, keyed by kind (`dropped`, `rejected`, `altered`) and reason.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func completeness() async throws(StoreError) -> [String: [String: Int]] {
        try await withConnection(doing: "reading completeness") { connection in
            try await self.completeness(on: connection)
        }
    }

    /// The completeness counts of the UTC days that begin in `[since, until)` (`nil`: no bound), keyed by kind and
    /// reason (Statements/select_completeness.sql).
    func completeness(
        on connection: PostgresConnection, since: Int64? = nil, until: Int64? = nil
    ) async throws -> [String: [String: Int]] {
        var binds = PostgresBindings()
        binds.append(since)
        binds.append(until)
        let rows = try await rows(PostgresSQL.statement("select_completeness"), binds, on: connection) { row in
            (try row[0].decode(String.self), try row[1].decode(String.self), try row[2].decode(Int64.self))
        }
        var result: [String: [String: Int]] = [:]
        for (kind, reason, count) in rows { result[kind, default: [:]][reason] = Int(count) }
        return result
    }

    /// The number of stored events.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func count() async throws(StoreError) -> Int {
        try await withConnection(doing: "counting events") { connection in
            try await self.rows("SELECT count(*)::bigint FROM events", on: connection) { row in
                Int(try row[0].decode(Int64.self))
            }.first ?? 0
        }
    }

    /// Recomputes every rollup (the report's and the hosted links funnel's) from the raw events, in one
    /// transaction (Statements/rebuild_rollups.sql).
    /// - Throws: ``StoreError`` when the transaction could not be committed; the rollups are then unchanged.
    public func rebuildRollups() async throws(StoreError) {
        try await inTransaction(doing: "rebuilding rollups") { connection in
            // Writers wait meanwhile: a batch committed during the rebuild would be counted twice or not at all.
            try await self.run(
                "LOCK TABLE event_rollup, link_rollup, link_visitor_day IN EXCLUSIVE MODE", on: connection)
            for statement in PostgresSQL.split(PostgresSQL.statement("rebuild_rollups")) {
                try await self.run(statement, on: connection)
            }
        }
    }

    /// Calls `body` with each stored event with `since <= timestamp < until`, in the SQLite store's export order
    /// (time, then id), as the same ``MeasurementEvent`` the SQLite store gives back.
    /// - Throws: ``StoreError`` when the database cannot be read, or what `body` throws.
    public func forEachEvent(
        since: Int64 = .min, until: Int64 = .max, _ body: (MeasurementEvent) throws -> Void
    ) async throws {
        let client = self.client
        let location = self.location
        do {
            try await client.withConnection { connection in
                var binds = PostgresBindings()
                binds.append(since)
                binds.append(until)
                let query = PostgresQuery(unsafeSQL: PostgresSQL.statement("select_events"), binds: binds)
                for try await row in try await connection.query(query, logger: self.logger) {
                    try body(try PostgresEventStore.event(from: row.makeRandomAccess(), location: location))
                }
            }
        } catch let error as PSQLError {
            throw storeError(error, doing: "reading events")
        }
    }

    /// Writes the stored events with `since <= ts < until` as NDJSON lines (with ids), in time order, in chunks of
    /// about 64 KiB of whole lines, as ``SQLiteEventStore/export(since:until:to:)`` does.
    /// - Returns: how many events were written.
    @discardableResult
    public func export(
        since: Int64 = .min, until: Int64 = .max, to write: ([UInt8]) throws -> Void
    ) async throws -> Int {
        try await exportNDJSON(since: since, until: until, to: write)
    }

    /// The event of a row of Statements/select_events.sql.
    static func event(from row: PostgresRandomAccessRow, location: String) throws -> MeasurementEvent {
        var fields: [String: String] = [:]
        for (offset, entry) in EventColumns.fields.enumerated() {
            let cell = row[offset + 3]
            if entry.field == FieldName.success {
                if let value = try cell.decode(Int64?.self) { fields[entry.field] = String(value) }
            } else if let value = try cell.decode(String?.self) {
                fields[entry.field] = value
            }
        }
        if let extra = try row[EventColumns.fields.count + 3].decode(String?.self) {
            guard case .object(let object) = try? JSONValue.parse(extra) else {
                throw StoreError(
                    .corrupt, path: location,
                    "an event's extra fields in \(location) are not a JSON object: restore the database")
            }
            for member in object {
                if let value = member.value.stringValue { fields[member.key] = value }
            }
        }
        return MeasurementEvent(
            id: EventID(try row[0].decode(String.self)), name: try row[2].decode(String.self), fields: fields,
            timestamp: try row[1].decode(Int64.self))
    }
}

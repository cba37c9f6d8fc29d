#if Server
import EventReport
import EventStoreSQLite
import EventStoreInterface
import EventStorePostgres
import Foundation
import MeasurementEvents
import NIOCore
import PostgresNIO

extension PostgresBenchmarkRun {
    /// The columns of `events`, for the baselines' plain tables.
    static let columns = ["id", "ts_ms", "name"] + EventColumns.fields.map(\.column) + ["extra"]

    static func tableSQL(_ name: String, primaryKey: Bool) -> String {
        let fields = EventColumns.fields.map { "\($0.column) \($0.field == FieldName.success ? "bigint" : "text")" }
        return "CREATE TABLE \(name) (id text\(primaryKey ? " PRIMARY KEY" : ""), ts_ms bigint, name text, "
            + fields.joined(separator: ", ") + ", extra text)"
    }

    /// The values of an event's row in `columns` order (`nil` for NULL), split as the stores split them.
    static func values(_ event: MeasurementEvent) -> [String?] {
        var row = [String?](repeating: nil, count: columns.count)
        row[0] = event.id.description
        row[1] = String(event.timestamp)
        row[2] = event.name
        var extra: [(String, String)] = []
        for (field, value) in event.fields {
            if let index = EventColumns.fields.firstIndex(where: { $0.field == field }),
                field != FieldName.success || value == "1" || value == "0"
            {
                row[index + 3] = value
            } else {
                extra.append((field, value))
            }
        }
        if !extra.isEmpty { row[columns.count - 1] = EventColumns.encodeExtra(&extra) }
        return row
    }

    /// COPY of `events` into a plain table (no index, no constraint): the server's own limit. Seconds.
    static func copy(_ events: [MeasurementEvent], on connection: PostgresConnection) async throws -> Double {
        try await connection.query("DROP TABLE IF EXISTS copy_events", logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: tableSQL("copy_events", primaryKey: false)), logger: logger)
        return try await seconds {
            try await connection.copyFrom(table: "copy_events", columns: columns, logger: logger) { writer in
                var buffer = ByteBuffer()
                for event in events {
                    for (index, value) in values(event).enumerated() {
                        if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
                        if let value {
                            PostgresCopyText.write(value, to: &buffer)
                        } else {
                            buffer.writeString("\\N")
                        }
                    }
                    buffer.writeInteger(UInt8(ascii: "\n"))
                    if buffer.readableBytes >= 1 << 16 {
                        try await writer.write(buffer)
                        buffer.clear()
                    }
                }
                if buffer.readableBytes > 0 { try await writer.write(buffer) }
            }
        }
    }

    /// One `INSERT ... ON CONFLICT (id) DO NOTHING` per event, each its own transaction. Seconds.
    static func insertEach(_ events: [MeasurementEvent], on connection: PostgresConnection) async throws -> Double {
        try await connection.query(
            PostgresQuery(unsafeSQL: tableSQL("naive_events", primaryKey: true)), logger: logger)
        let placeholders = (1...columns.count).map { "$\($0)" }.joined(separator: ", ")
        let sql =
            "INSERT INTO naive_events (\(columns.joined(separator: ", "))) VALUES (\(placeholders)) "
            + "ON CONFLICT (id) DO NOTHING"
        return try await seconds {
            for event in events {
                var binds = PostgresBindings()
                for (index, value) in values(event).enumerated() {
                    if index == 1 || index == 4 {
                        binds.append(value.flatMap { Int64($0) })
                    } else {
                        binds.append(value)
                    }
                }
                try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
            }
        }
    }

    /// The report (rows and builder) on `events` events in PostgreSQL against the SQLite store's, median of 3.
    func reportMeasure(events count: Int, url: String) async throws -> Measure {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "alstats-bench-postgres-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try SQLiteEventStore(path: folder.appendingPathComponent("report.sqlite").path)
        let postgres = try await PostgresEventStore.open(url: url)
        var lines = RealisticLines(style: .random, seed: 5)
        let codec = NDJSONCodec()
        var written = 0
        while written < count {
            let batch = (0..<min(10_000, count - written)).compactMap { _ in try? codec.decode(lines.next()) }
            _ = try sqlite.writeBatches([batch])
            _ = try await postgres.writeBatches([batch])
            written += 10_000
        }
        let query = ReportQuery()
        let reader = ReportReader(store: sqlite)
        var sqliteTimes: [Double] = []
        var postgresTimes: [Double] = []
        for _ in 0..<3 {
            sqliteTimes.append(try await Self.seconds { _ = try await reader.readReport(for: query) })
            postgresTimes.append(try await Self.seconds { _ = try await postgres.readReport(for: query) })
        }
        await postgres.close()
        let label = count >= 1_000_000 ? "\(count / 1_000_000)M" : "\(count / 1_000)k"
        return Measure.compared(
            suite: PostgresBenchmark.suite, name: "report_ms_\(label)", value: median(postgresTimes) * 1_000,
            unit: "ms", baseline: "SQLite store, same events", baselineValue: median(sqliteTimes) * 1_000,
            goal: count >= 10_000_000 ? "ratio <= 2" : "ratio <= 2 (goal is at 10M)", check: { $0 <= 2 })
    }

    /// Wall-clock seconds of `body`.
    static func seconds(_ body: () async throws -> Void) async throws -> Double {
        let start = nowNanoseconds()
        try await body()
        return Double(nowNanoseconds() - start) / 1e9
    }

    /// `serverURL` with its database replaced by `name`.
    func databaseURL(_ name: String) throws -> String {
        guard var components = URLComponents(string: serverURL) else {
            throw BenchFailure("--postgres-url \(serverURL) is not a URL")
        }
        components.path = "/" + name
        return components.string ?? serverURL
    }

    /// Runs `sql` on the server's own database.
    func admin(_ sql: String) async throws {
        _ = try await withConnection(serverURL) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
        }
    }

    /// Runs `body` with a connection of its own to `url`.
    func withConnection<Result: Sendable>(
        _ url: String, _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        guard let components = URLComponents(string: url), let host = components.host, let user = components.user
        else { throw BenchFailure("--postgres-url \(url) is not postgres://USER@HOST:PORT/DATABASE") }
        let configuration = PostgresConnection.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: components.password,
            database: String(components.path.dropFirst()), tls: .disable)
        let connection = try await PostgresConnection.connect(
            configuration: configuration, id: 1, logger: Self.logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
#endif

import CSQLite
import EventStoreInterface
import EventStoreSQLite
import Foundation
import MeasurementEvents

/// `alstats-bench store`: events/s into SQLite, side by side on the same generated events in one run:
/// (a) a naive pipeline (a NotificationCenter observer inserting each event in autocommit, fields as
/// JSONSerialization text), (b) a tuned raw batched C-API insert of the same rows into the same schema,
/// (c) ours: bus → SQLiteEventSink with durable batches. Also database bytes per event against the NDJSON
/// export of the same events. The events are those of ``WideLines`` (``BenchEvents/wide(_:seed:)``, duplicates
/// included), or with `--workload realistic` the project's own (``BenchEvents/event(_:start:)``).
/// Options: `--events N` (default 300,000; 60,000 with `--quick`), `--workload wide|realistic`, `--seed S`
/// (default 1).
enum StoreBenchmark {
    static let suite = "store"

    /// Runs the suite. Longer than 60 lines on purpose: one measured sequence, each phase beside its baseline,
    /// read top to bottom in the order the figures are printed.
    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let count = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 60_000 : 300_000)
        let naiveCount = min(count, arguments.quick ? 5_000 : 20_000)
        let seed = UInt64(arguments.values["seed"] ?? "") ?? 1
        let events =
            try Workload.of(arguments) == .wide
            ? BenchEvents.wide(count, seed: seed) : (0..<count).map { BenchEvents.event($0) }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("alstats-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        // Best of two rounds each, alternated, so that neither gets a quieter machine.
        var naive = 0.0
        var raw = 0.0
        var ours = 0.0
        var databaseBytes = 0
        var exportBytes = 0
        if arguments.values["only"] == "direct" {  // for profiling: the store without the bus
            let store = try SQLiteEventStore(path: folder.appendingPathComponent("direct.sqlite").path)
            let start = nowNanoseconds()
            var index = 0
            while index < events.count {
                try store.write(Array(events[index..<min(index + 8_192, events.count)]))
                index += 8_192
            }
            let rate = Double(events.count) / (Double(nowNanoseconds() - start) / 1e9)
            return [
                Measure.absolute(
                    suite: suite, name: "direct_events_per_s", value: rate, unit: "events/s", goal: "-", met: true)
            ]
        }
        if arguments.values["only"] == "raw" {
            return [
                Measure.absolute(
                    suite: suite, name: "raw_events_per_s",
                    value: try rawRate(events, path: folder.appendingPathComponent("raw.sqlite").path),
                    unit: "events/s", goal: "-", met: true)
            ]
        }
        if arguments.values["only"] == "ours" {  // for profiling
            return [
                Measure.absolute(
                    suite: suite, name: "events_per_s",
                    value: try oursRate(events, path: folder.appendingPathComponent("only.sqlite").path),
                    unit: "events/s", goal: "-", met: true)
            ]
        }
        for round in 0..<2 {
            naive = max(
                naive,
                try naiveRate(
                    Array(events.prefix(naiveCount)), path: folder.appendingPathComponent("naive\(round).sqlite").path))
            raw = max(raw, try rawRate(events, path: folder.appendingPathComponent("raw\(round).sqlite").path))
            let path = folder.appendingPathComponent("ours\(round).sqlite").path
            ours = max(ours, try oursRate(events, path: path))
            let store = try SQLiteEventStore(path: path)
            exportBytes = 0
            try store.export { exportBytes += $0.count }
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            databaseBytes = (attributes[.size] as? Int) ?? 0
        }
        let perEvent = Double(databaseBytes) / Double(count)
        let ndjsonPerEvent = Double(exportBytes) / Double(count)
        return [
            Measure.compared(
                suite: suite, name: "events_per_s_vs_naive", value: ours, unit: "events/s",
                baseline: "NotificationCenter + autocommit INSERT + JSONSerialization", baselineValue: naive,
                goal: "ratio >= 12", check: { $0 >= 12 }),
            Measure.compared(
                suite: suite, name: "events_per_s_vs_raw", value: ours, unit: "events/s",
                baseline: "tuned raw batched C-API insert", baselineValue: raw, goal: "ratio >= 0.8",
                check: { $0 >= 0.8 }),
            Measure.compared(
                suite: suite, name: "database_bytes_per_event", value: perEvent, unit: "bytes/event",
                baseline: "NDJSON export", baselineValue: ndjsonPerEvent, goal: "ratio <= 1.0", check: { $0 <= 1.0 }),
        ]
    }

    /// (c) The bus publishing the events (ids kept) into an SQLiteEventSink; timed until all are committed.
    static func oursRate(_ events: [MeasurementEvent], path: String) throws -> Double {
        let sink = try SQLiteEventSink(path: path)
        let bus = MeasurementEventBus()
        bus.attach(sink, options: ObserverOptions(label: "sqlite", bufferCapacity: 65_536))
        let round = 49_152
        let cpuStart = processCPUNanoseconds()
        defer {
            if ProcessInfo.processInfo.environment["ALSTATS_BENCH_CPU"] != nil {
                print("ours process cpu ns/event", (processCPUNanoseconds() - cpuStart) / UInt64(events.count))
            }
        }
        let start = nowNanoseconds()
        var index = 0
        while index < events.count {
            for event in events[index..<min(index + round, events.count)] { bus.publish(event) }
            index += round
            bus.flush()  // keeps the buffer from overflowing; the time it waits is part of the measure
        }
        let elapsed = nowNanoseconds() - start
        let dropped = bus.statistics.totalDropped
        bus.close()
        let distinct = Set(events.map(\.id)).count  // duplicates of stored ids are not stored again
        guard dropped == 0, sink.inserted == distinct else {
            throw BenchFailure("the sink stored \(sink.inserted) of \(distinct) distinct events (\(dropped) dropped)")
        }
        return Double(events.count) / (Double(elapsed) / 1e9)
    }

    /// (b) The same rows into the same schema (`extra` included), bound from values prepared outside the timing, in
    /// transactions of 32,768 rows (the sink's commit size), WAL and synchronous=NORMAL like ours.
    static func rawRate(_ events: [MeasurementEvent], path: String) throws -> Double {
        _ = try SQLiteEventStore(path: path)  // the same schema, by the same migrations
        let rows = events.map(RawRow.init)
        var database: OpaquePointer?
        guard sqlite3_open(path, &database) == SQLITE_OK, let database else {
            throw BenchFailure("cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        // Exact dedup the way SQLite does it cheapest with one statement: a unique index on id (the store's own
        // layout until schema 10; since 0011 the store dedups through its two-level id index instead).
        sqlite3_exec(
            database,
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; CREATE UNIQUE INDEX raw_events_by_id ON events (id)",
            nil, nil, nil)
        var statement: OpaquePointer?
        let sql =
            "INSERT INTO events (id, ts_ms, name, " + RawRow.columns.joined(separator: ", ")
            + ", extra) VALUES (" + Array(repeating: "?", count: RawRow.columns.count + 4).joined(separator: ", ")
            + ") ON CONFLICT (id) DO NOTHING"
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw BenchFailure("prepare failed: \(String(cString: sqlite3_errmsg(database)))")
        }
        defer { sqlite3_finalize(statement) }
        let cpuStart = processCPUNanoseconds()
        defer {
            if ProcessInfo.processInfo.environment["ALSTATS_BENCH_CPU"] != nil {
                print("raw process cpu ns/event", (processCPUNanoseconds() - cpuStart) / UInt64(events.count))
            }
        }
        let start = nowNanoseconds()
        sqlite3_exec(database, "BEGIN", nil, nil, nil)
        for (index, row) in rows.enumerated() {
            row.bind(statement)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw BenchFailure("insert failed") }
            sqlite3_reset(statement)
            if index % 32_768 == 32_767 {
                sqlite3_exec(database, "COMMIT; BEGIN", nil, nil, nil)
            }
        }
        sqlite3_exec(database, "COMMIT", nil, nil, nil)
        let elapsed = nowNanoseconds() - start
        return Double(rows.count) / (Double(elapsed) / 1e9)
    }

    /// (a) NotificationCenter observer, one autocommit INSERT per event, fields as JSONSerialization text.
    static func naiveRate(_ events: [MeasurementEvent], path: String) throws -> Double {
        var database: OpaquePointer?
        guard sqlite3_open(path, &database) == SQLITE_OK, let database else {
            throw BenchFailure("cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        // WAL and synchronous=NORMAL as ours, so the difference is the pipeline and batching, not fsync.
        sqlite3_exec(
            database,
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; "
                + "CREATE TABLE events (id TEXT PRIMARY KEY, name TEXT, ts INTEGER, fields TEXT)", nil, nil, nil)
        var statement: OpaquePointer?
        sqlite3_prepare_v2(database, "INSERT OR IGNORE INTO events VALUES (?, ?, ?, ?)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        let center = NotificationCenter()
        let name = Notification.Name("com.parse.bolts.measurement_event")
        nonisolated(unsafe) let insert = statement
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { note in
            guard let info = note.userInfo, let args = info["event_args"] as? [String: String],
                let data = try? JSONSerialization.data(withJSONObject: args),
                let json = String(data: data, encoding: .utf8)
            else { return }
            csqlite_bind_text(insert, 1, info["id"] as? String ?? "", -1)
            csqlite_bind_text(insert, 2, info["event_name"] as? String ?? "", -1)
            sqlite3_bind_int64(insert, 3, info["ts"] as? Int64 ?? 0)
            csqlite_bind_text(insert, 4, json, -1)
            sqlite3_step(insert)
            sqlite3_reset(insert)
        }
        defer { center.removeObserver(observer) }
        let start = nowNanoseconds()
        for event in events {
            center.post(
                name: name, object: nil,
                userInfo: [
                    "event_name": event.name, "event_args": event.fields, "id": event.id.description,
                    "ts": event.timestamp,
                ])
        }
        let elapsed = nowNanoseconds() - start
        return Double(events.count) / (Double(elapsed) / 1e9)
    }
}

/// One row of `events` prepared for binding, outside the timed loop of the raw baseline.
struct RawRow {
    static let columns = [
        "ref", "success", "type", "referer_app_name", "source_url_host", "error", "input_url", "input_url_scheme",
        "target_url", "referer_url", "source_application", "output_url", "output_url_scheme", "source_url", "version",
    ]
    static let fieldNames = [
        FieldName.ref, FieldName.success, FieldName.type, FieldName.refererAppName, FieldName.sourceURLHost,
        FieldName.error, FieldName.inputURL, FieldName.inputURLScheme, FieldName.targetURL, FieldName.refererURL,
        FieldName.sourceApplication, FieldName.outputURL, FieldName.outputURLScheme, FieldName.sourceURL,
        FieldName.version,
    ]

    var id: [UInt8]
    var timestamp: Int64
    var name: [UInt8]
    var values: [[UInt8]?]
    var success: Int64?
    /// The fields without a column, as the store keeps them in `extra`: a JSON object with sorted keys.
    var extra: [UInt8]?

    init(_ event: MeasurementEvent) {
        let (high, low) = event.id.uuidValue ?? (0, 0)
        id = withUnsafeBytes(of: (high.bigEndian, low.bigEndian)) { Array($0) }
        timestamp = event.timestamp
        name = Array(event.name.utf8)
        values = RawRow.fieldNames.map { event.fields[$0].map { Array($0.utf8) } }
        success = event.fields[FieldName.success].flatMap { Int64($0) }
        var others = event.fields.filter { EventColumns.bindIndex(of: $0.key) == nil }.map { ($0.key, $0.value) }
        extra = others.isEmpty ? nil : Array(EventColumns.encodeExtra(&others).utf8)
    }

    func bind(_ statement: OpaquePointer) {
        id.withUnsafeBytes { _ = csqlite_bind_blob(statement, 1, $0.baseAddress, Int32($0.count)) }
        sqlite3_bind_int64(statement, 2, timestamp)
        name.withUnsafeBufferPointer { bind(statement, 3, $0) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 4)
            if offset == 1 {
                if let success {
                    sqlite3_bind_int64(statement, index, success)
                } else {
                    sqlite3_bind_null(statement, index)
                }
            } else if let value {
                value.withUnsafeBufferPointer { bind(statement, index, $0) }
            } else {
                sqlite3_bind_null(statement, index)
            }
        }
        if let extra {
            extra.withUnsafeBufferPointer { bind(statement, Int32(RawRow.columns.count + 4), $0) }
        } else {
            sqlite3_bind_null(statement, Int32(RawRow.columns.count + 4))
        }
    }

    private func bind(_ statement: OpaquePointer, _ index: Int32, _ bytes: UnsafeBufferPointer<UInt8>) {
        bytes.withMemoryRebound(to: CChar.self) {
            _ = csqlite_bind_text(statement, index, $0.baseAddress, Int32($0.count))
        }
    }
}

/// A benchmark that could not run as intended.
struct BenchFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// CPU time of the whole process (all threads), in nanoseconds.
func processCPUNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

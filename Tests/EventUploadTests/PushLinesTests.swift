import EventIngest
import EventStoreSQLite
import Foundation
import MeasurementEvents
import SQLiteSupport
import Synchronization
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventUpload

/// `alstats push` writes each row's NDJSON line straight from the columns of `events` (``PushSource``), without
/// making an event and encoding it; `alstats export` (``SQLiteEventStore/export(since:until:to:)``) is the reference
/// encoding. A collector must receive, byte for byte, the lines export writes for the same database: rows written by
/// the store, by ingest and by hand (shapes only an older writer or a direct insert leaves), pushed through
/// ``EventPusher`` with a transport that keeps each request's decompressed body.
struct PushLinesTests {
    /// 2025-11-21T00:00:00Z: every row gets a later time than the row before it, so export's time order is the
    /// push's arrival (rowid) order.
    static let start: Int64 = 1_763_683_200_000

    @Test func pushSendsTheBytesExportWritesForOddRows() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("odd.sqlite")
        let store = try SQLiteEventStore(path: path)
        var clock = PushLinesTests.start
        #expect(try store.write(PushLinesTests.oddEvents(clock: &clock)) == 15)
        try PushLinesTests.ingest(PushLinesTests.oddLines(clock: &clock), into: store, folder: folder)
        try PushLinesTests.insert(PushLinesTests.oddRows(clock: &clock), into: store)
        #expect(try store.write(PushLinesTests.oddEvents(clock: &clock, suffix: "-after")) == 15)
        let rows = try store.count()
        #expect(rows == 15 + 3 + PushLinesTests.oddRowCount + 15)

        let exported = try PushLinesTests.exportedBytes(store)
        let transport = CapturingTransport()
        try await PushLinesTests.push(path, through: transport)

        let pushed = transport.bodies.flatMap { $0 }
        PushLinesTests.expectSameLines(pushed: pushed, exported: exported, rows: rows)
    }

    @Test func pushSplitsTwelveHundredMixedRowsIntoBatchesOf500InExportOrder() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("mixed.sqlite")
        let store = try SQLiteEventStore(path: path)
        var clock = PushLinesTests.start
        var written = 0
        // Runs of 97 store-written events, each followed by 3 hand-inserted rows: 12 of them.
        while written < 1_200 {
            #expect(try store.write(PushLinesTests.mixedEvents(97, from: written, clock: &clock)) == 97)
            let rows = PushLinesTests.mixedRows(from: written + 97, clock: &clock)
            try PushLinesTests.insert(rows, into: store)
            written += 97 + rows.count
        }
        #expect(try store.count() == 1_200)

        let exported = try PushLinesTests.exportedBytes(store)
        let transport = CapturingTransport()
        try await PushLinesTests.push(path, through: transport)

        let bodies = transport.bodies
        #expect(bodies.map(\.count) == [500, 500, 200], "batches of at most 500 events, in one request each")
        PushLinesTests.expectSameLines(pushed: bodies.flatMap { $0 }, exported: exported, rows: 1_200)
    }
}

// MARK: The rows

extension PushLinesTests {
    /// The next time, one millisecond after the last.
    static func tick(_ clock: inout Int64) -> Int64 {
        clock += 1
        return clock
    }

    /// Text that needs every kind of escape, and some that needs none but is not ASCII.
    static let escapes =
        "quote \" backslash \\ slash / nul \u{0} bell \u{7} backspace \u{8} tab \t newline \n formfeed \u{C} "
        + "return \r escape \u{1B} unit \u{1F} delete \u{7F} LS \u{2028} PS \u{2029} </script> BOM \u{FEFF} "
        + "é e\u{301} ß 中文 🎉 👩‍👩‍👧 \u{10FFFF}"

    /// Events the store writes: every catalogue field, text, uppercase and UUID ids, non-numeric `success`, extra
    /// keys that sort among the column names by bytes, empty strings and very long values.
    static func oddEvents(clock: inout Int64, suffix: String = "") -> [MeasurementEvent] {
        let catalogue: [String: String] = [
            FieldName.ref: "feed\(suffix)", FieldName.success: "1", FieldName.type: "app",
            FieldName.refererAppName: "Café ☕️ \(escapes)", FieldName.sourceURLHost: "bücher.example",
            FieldName.error: escapes, FieldName.inputURL: "https://example.com/a?q=\"x\"&b=\\y#é",
            FieldName.inputURLScheme: "https", FieldName.targetURL: "https://example.com/🎉",
            FieldName.refererURL: "example://back\u{2028}", FieldName.sourceApplication: "com.example.App",
            FieldName.outputURL: "example://out?al_applink_data=%7B%22a%22%7D", FieldName.outputURLScheme: "example",
            FieldName.sourceURL: "https://bücher.example/p", FieldName.version: "1.0",
        ]
        let uuid = EventID(uuidHigh: 0x0192_f5c3_8a1b_7c4d, low: 0x9e2f_0123_4567_89ab &+ UInt64(suffix.utf8.count))
        let shapes: [(id: EventID, name: String, fields: [String: String])] = [
            (uuid, EventName.navIn, catalogue),
            (EventID("plain-text-id\(suffix)"), EventName.navOut, [FieldName.success: "0", FieldName.type: "fail"]),
            (EventID("0192F5C3-8A1B-7C4D-9E2F-0123456789AB\(suffix)"), EventName.refBackOut, [FieldName.ref: "up"]),
            (EventID("0192F5C3-8A1B-7C4D-9E2F-0123456789AC".lowercased() + suffix), EventName.navOut, [:]),
            (EventID("success-yes\(suffix)"), EventName.navOut, [FieldName.success: "yes", FieldName.type: "web"]),
            (EventID("success-empty\(suffix)"), EventName.navOut, [FieldName.success: "", "": "", "empty": ""]),
            (EventID("success-two\(suffix)"), EventName.navIn, [FieldName.success: "01", FieldName.ref: ""]),
            (
                EventID("extra-order\(suffix)"), EventName.navOut,
                [
                    "zeta": "z", "Alpha": "A", "_under": "_", "ünïcode": "ü", "emoji🎉key": "🎉", "ref2": "r2",
                    "re": "re", FieldName.ref: "ref", "sourceURLHostX": "x", FieldName.sourceURLHost: "host",
                    "sourceURLa": "a", FieldName.sourceURL: "s", "~": "tilde", "\u{7F}": "del", "é": "e-acute",
                    "e\u{301}x": "e-combining-x", "\u{FF}": "y-diaeresis", "Z": "Z", "a": "a",
                ]
            ),
            (EventID("escapes \" \\ \n \u{2028} 🎉\(suffix)"), "host.custom \"event\" ü\u{1}", ["k \"\\\n": escapes]),
            (
                EventID("long-values\(suffix)"), EventName.navIn,
                [
                    FieldName.ref: String(repeating: "x", count: 100_000),
                    "long": String(repeating: "🎉\"é", count: 10_000),
                    String(repeating: "k", count: 5_000): "long key",
                ]
            ),
            (EventID("café\(suffix)"), EventName.navOut, ["café": "precomposed", FieldName.type: "app"]),
            (EventID("cafe\u{301}\(suffix)"), EventName.navOut, ["cafe\u{301}": "combining", FieldName.type: "app"]),
            (EventID("no-fields\(suffix)"), "", [:]),
            (EventID("\(suffix)"), EventName.navIn, [FieldName.success: "1"]),
            (EventID("UPPER-TEXT-ID\(suffix)"), "AL_NAV_IN", [FieldName.version: "2.0", "Version": "upper"]),
        ]
        return shapes.map { MeasurementEvent(id: $0.id, name: $0.name, fields: $0.fields, timestamp: tick(&clock)) }
    }

    /// NDJSON lines for ingest: a key set twice, JSON escapes in keys and values, and a line without an id (its id is
    /// derived). Ingest refuses keys equal up to Unicode normalisation and NUL characters; ``oddRows(clock:)``
    /// inserts those by hand.
    static func oddLines(clock: inout Int64) -> [String] {
        [
            #"{"id":"ingested-twice","name":"al_nav_in","ts":\#(tick(&clock)),"fields":"#
                + #"{"dup":"first","success":"1","dup":"second","\u2028":"\u0001"}}"#,
            #"{"id":"INGESTED-UPPER","name":"al_nav_in","ts":\#(tick(&clock)),"fields":"#
                + #"{"k\u00e9y":"\ud83c\udf89 \"\/\b","success":"no","ref":"\u001f"}}"#,
            #"{"name":"al_nav_out","ts":\#(tick(&clock)),"fields":{"ref":"derived id","type":"web"}}"#,
        ]
    }

    /// Ingests `lines` one file each, in order: ingest inserts a batch in the order of its ids' keys, and each row must
    /// arrive after the one before it in time.
    static func ingest(_ lines: [String], into store: SQLiteEventStore, folder: TemporaryFolder) throws {
        for (number, line) in lines.enumerated() {
            let file = folder.file("odd-\(number).ndjson")
            try Data((line + "\n").utf8).write(to: URL(fileURLWithPath: file))
            var invalid: [String] = []
            let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { invalid.append("\($0)") })
            #expect(invalid.isEmpty)
            #expect(summary.stored == 1, "line \(number + 1) stored")
        }
    }

    /// The number of rows ``oddRows(clock:)`` inserts.
    static let oddRowCount = 22

    /// Row shapes only a direct insert (or an older writer) leaves: ids as short, non-UTF-8, empty and 16-byte blobs,
    /// as integers and as lowercase UUID text; `success` as text, 2 or a real; extra keys that collide with a column
    /// or with each other up to normalisation; extra members that are not strings; values that are not text.
    static func oddRows(clock: inout Int64) -> [String] {
        let columns = "id, ts_ms, name, ref, success, type, version, extra"
        let rows: [String] = [
            "x'0102ab', \(tick(&clock)), 'al_nav_out', 'short non-UTF-8 blob id', NULL, NULL, NULL, NULL",
            "CAST('blob-text-id' AS BLOB), \(tick(&clock)), 'al_nav_out', 'blob of text', 1, NULL, NULL, NULL",
            "x'', \(tick(&clock)), 'al_nav_out', 'empty blob id', NULL, NULL, NULL, NULL",
            "x'ffffffffffffffffffffffffffffffff', \(tick(&clock)), 'al_nav_in', 'not a v7', NULL, NULL, NULL, NULL",
            "x'00000000000000000000000000000000', \(tick(&clock)), 'al_nav_in', 'nil uuid', 0, NULL, NULL, '{}'",
            "x'0192f5c38a1b7c4d9e2f0123456789ab00', \(tick(&clock)), 'al_nav_in', '17 bytes', NULL, NULL, NULL, NULL",
            "CAST('0192f5c3-8a1b-7c4d-9e2f-0123456789ad' AS BLOB), \(tick(&clock)), 'al_nav_in', 'uuid text blob', "
                + "NULL, NULL, NULL, NULL",
            "'0192f5c3-8a1b-7c4d-9e2f-0123456789ae', \(tick(&clock)), 'al_nav_in', 'uuid as text', NULL, NULL, NULL, "
                + "NULL",
            "42, \(tick(&clock)), 'al_nav_in', 'integer id', NULL, NULL, NULL, NULL",
            "'success-text', \(tick(&clock)), 'al_nav_out', NULL, 'yes', NULL, NULL, NULL",
            "'success-two', \(tick(&clock)), 'al_nav_out', NULL, 2, NULL, NULL, NULL",
            "'success-real', \(tick(&clock)), 'al_nav_out', NULL, 1.5, NULL, NULL, NULL",
            "'success-negative', \(tick(&clock)), 'al_nav_out', NULL, -1, 'web', NULL, NULL",
            "'extra-over-columns', \(tick(&clock)), 'al_nav_out', 'column ref', 1, 'app', '1.0', "
                + #"'{"ref":"extra ref","success":"maybe","type":"extra type","zz":"z"}'"#,
            "'extra-nfc-first', \(tick(&clock)), 'al_nav_out', NULL, NULL, NULL, NULL, "
                + "'{\"café\":\"precomposed\",\"cafe\u{301}\":\"combining\",\"caf\\u00e9\":\"escaped\"}'",
            "'extra-nfd-first', \(tick(&clock)), 'al_nav_out', NULL, NULL, NULL, NULL, "
                + "'{\"cafe\u{301}\":\"combining\",\"café\":\"precomposed\"}'",
            "'extra-not-strings', \(tick(&clock)), 'al_nav_out', 'r', NULL, NULL, NULL, "
                + #"'{"n":1,"b":true,"nul":null,"arr":["x"],"obj":{"k":"v"},"ref":2,"s":"kept"}'"#,
            "'extra-duplicate', \(tick(&clock)), 'al_nav_out', NULL, NULL, NULL, NULL, "
                + #"'{"dup":"first","dup":"second","version":"from extra"}'"#,
            "'extra-escapes', \(tick(&clock)), 'al_nav_out', NULL, NULL, NULL, NULL, "
                + #"'{"esc":"\u0000\u001f\"\\\/\u2028\ud83c\udf89","\t":"tab key"}'"#,
            "'values-not-text', \(tick(&clock)), 'al_nav_in', 42, NULL, x'c3', 1.5, NULL",
            "'empty-blob-field', \(tick(&clock)), 'al_nav_in', x'', NULL, CAST('blob type' AS BLOB), NULL, '{}'",
            "'name-not-text', \(tick(&clock)), 7, NULL, NULL, NULL, NULL, NULL",
        ]
        return rows.map { "INSERT INTO events (\(columns)) VALUES (\($0))" }
    }

    /// `count` events of every shape, numbered from `first`.
    static func mixedEvents(_ count: Int, from first: Int, clock: inout Int64) -> [MeasurementEvent] {
        (first..<first + count).map { index in
            let id: EventID
            var fields: [String: String] = ["index": String(index)]
            switch index % 6 {
            case 0: id = EventID(uuidHigh: 0x0192_f5c3_8a1b_7000, low: 0x8000_0000_0000_0000 | UInt64(index))
            case 1: id = EventID("text-\(index)")
            case 2: id = EventID("0192F5C3-8A1B-7C4D-9E2F-" + hex(index, digits: 12))
            default: id = EventID("mixed \"\(index)\" é")
            }
            switch index % 5 {
            case 0: fields[FieldName.success] = "1"
            case 1: fields[FieldName.success] = index % 2 == 0 ? "0" : "yes"
            case 2: fields[FieldName.inputURL] = "https://example.com/\(index)?q=\"\\\u{2028}"
            case 3: fields["extra \(index % 7)"] = "🎉\u{1}\(index)"
            default: fields[FieldName.type] = "web"
            }
            if index % 4 == 0 { fields[FieldName.refererAppName] = "Café \(index)" }
            let names = [EventName.navIn, EventName.navOut, EventName.refBackOut, "custom.\(index % 3)"]
            return MeasurementEvent(id: id, name: names[index % 4], fields: fields, timestamp: tick(&clock))
        }
    }

    /// Three hand-inserted rows numbered from `first`: a short blob id, extra over a column, extra keys equal up to
    /// normalisation.
    static func mixedRows(from first: Int, clock: inout Int64) -> [String] {
        let columns = "id, ts_ms, name, ref, success, extra"
        return [
            "x'01\(hex(first, digits: 4))', \(tick(&clock)), 'al_nav_out', 'blob \(first)', 1, NULL",
            "'hand-\(first)', \(tick(&clock)), 'al_nav_in', 'column', 0, "
                + #"'{"ref":"extra \#(first)","success":"x"}'"#,
            "'nfd-\(first)', \(tick(&clock)), 'al_nav_in', NULL, NULL, "
                + "'{\"cafe\u{301}\":\"combining\",\"café\":\"precomposed \(first)\"}'",
        ].map { "INSERT INTO events (\(columns)) VALUES (\($0))" }
    }

    /// `value` in `digits` uppercase hex digits, zero-padded.
    static func hex(_ value: Int, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// Runs `statements` on the store's connection, in one transaction.
    static func insert(_ statements: [String], into store: SQLiteEventStore) throws {
        try store.withConnection { store throws(SQLiteError) in
            try store.connection.execute("BEGIN IMMEDIATE")
            for statement in statements { try store.connection.execute(statement) }
            try store.connection.execute("COMMIT")
        }
    }
}

// MARK: Pushing and comparing

extension PushLinesTests {
    /// What `alstats export` writes for the database, split into lines (newline dropped).
    static func exportedBytes(_ store: SQLiteEventStore) throws -> [[UInt8]] {
        var bytes: [UInt8] = []
        try store.export { bytes += $0 }
        #expect(bytes.last == 0x0A, "export ends every line with a newline")
        return bytes.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
    }

    /// Pushes the database at `path` to a collector that accepts everything, one batch at a time (requests in order).
    static func push(_ path: String, through transport: CapturingTransport) async throws {
        let pusher = try EventPusher(
            source: try StoreEventLines(path: path), collector: URL(string: "http://127.0.0.1:9/v1/events")!,
            writeKey: "wk",
            policy: UploadPolicy(giveUpAfter: .seconds(60)), batchesInFlight: 1, transport: transport,
            clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
        try await pusher.push()
        #expect(pusher.status.pending == 0)
        #expect(try pusher.rejectedLines().values.reduce(0, +) == 0)
    }

    /// Checks that the pushed lines are the exported ones, same bytes, same order, one per row.
    static func expectSameLines(
        pushed: [[UInt8]], exported: [[UInt8]], rows: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(exported.count == rows, "export writes one line per row", sourceLocation: sourceLocation)
        #expect(pushed.count == exported.count, "push sends one line per row", sourceLocation: sourceLocation)
        let differing = zip(pushed, exported).enumerated().filter { $0.element.0 != $0.element.1 }
        for (index, (mine, reference)) in differing.prefix(5) {
            Issue.record(
                """
                line \(index + 1) of \(rows) differs:
                  pushed:   \(String(decoding: mine.prefix(600), as: UTF8.self).debugDescription)
                  exported: \(String(decoding: reference.prefix(600), as: UTF8.self).debugDescription)
                """, sourceLocation: sourceLocation)
        }
        #expect(differing.count == 0, "lines differ (the first five above)", sourceLocation: sourceLocation)
    }
}

/// A collector that stores every line: records each request's decompressed body as its lines (bytes, newline
/// dropped), and checks that the body ends its last line with a newline.
final class CapturingTransport: UploadTransport {
    private let recorded = StateLock<[[[UInt8]]]>([])

    /// Each request's lines, in the order the requests were sent.
    var bodies: [[[UInt8]]] { recorded.withLock { $0 } }

    func send(_ body: Data, to endpoint: URL, writeKey: String, timeout: Duration) async throws -> UploadResponse {
        let text = [UInt8](try Gzip.decompress(body, limit: 16 << 20))
        #expect(text.last == 0x0A, "a request's body ends its last line with a newline")
        let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init)
        recorded.withLock { $0.append(lines) }
        let receipt = #"{"accepted":\#(lines.count),"duplicates":0,"rejected":0,"errors":[]}"#
        return UploadResponse(status: 200, body: Data(receipt.utf8))
    }
}

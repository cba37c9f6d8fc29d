import EventIngest
import Foundation
import MeasurementEvents
import SQLiteSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// The long fields packed with a trained dictionary (Migrations/0016_pack_event_fields.sql): nothing is lost,
/// every reader sees the same events as before, a database is packed only when asked, and a database written
/// before is packed by ``SQLiteEventStore/pack()``.
@Suite(.enabled(if: SQLiteEventStore.canPack, "this build has no Zstandard"))
struct PackedFieldsTests {
    /// A store that packs once it holds enough events.
    static func packingStore(_ database: TemporaryDatabase) throws -> SQLiteEventStore {
        var options = SQLiteEventStore.Options()
        options.packFields = true
        return try SQLiteEventStore(path: database.path, options: options)
    }

    /// Values that often break a round trip, in the long fields too (no NUL: every reader of NDJSON refuses one,
    /// `nul_character`).
    static let awkward = [
        "emoji 🎉👩🏽‍💻", "עברית ومرحبا", #"quote " and 'single'"#, "new\nline\r\nand\ttab", "control\u{1}byte\u{7F}", "",
        String(repeating: "long/", count: 300),
    ]

    /// `count` events with long, mostly unique URLs and extra fields, a few of them awkward, deterministic for
    /// `seed`; every tenth has no long field at all.
    static func wideEvents(_ count: Int, seed: UInt64, start: Int64 = 1_763_683_200_000) -> [MeasurementEvent] {
        var random = SeededGenerator(seed: seed)
        let hosts = ["www.recipes.example", "video.example.tv", "news.example.org"]
        return (0..<count).map { index in
            let id = EventID(uuidHigh: UInt64.random(in: 0...UInt64.max, using: &random), low: UInt64(index))
            let timestamp = start + Int64(index) * 1_000
            let host = hosts.randomElement(using: &random)!
            let item = UInt32.random(in: 0...UInt32.max, using: &random)
            let odd = index % 97 == 0 ? awkward[index / 97 % awkward.count] : ""
            switch index % 10 {
            case 9:
                return MeasurementEvent(
                    id: id, name: "signup", fields: [FieldName.ref: "feed", FieldName.success: "1"],
                    timestamp: timestamp)
            case 0..<5:
                return MeasurementEvent(
                    id: id, name: EventName.navIn,
                    fields: [
                        FieldName.inputURL: "readly://article/\(item)?al_applink_data=%7B%22target_url%22\(odd)",
                        FieldName.inputURLScheme: "readly",
                        FieldName.targetURL: "https://\(host)/p/\(item)?ref=feed&sid=\(item % 977)\(odd)",
                        FieldName.refererURL: "fb://feed", FieldName.refererAppName: "Facebook",
                        FieldName.ref: "feed", "sessionId": String(item, radix: 16), "country": "BR\(odd)",
                    ], timestamp: timestamp)
            default:
                return MeasurementEvent(
                    id: id, name: EventName.navOut,
                    fields: [
                        FieldName.outputURL: "readly://article/\(item)\(odd)",
                        FieldName.sourceURL: "https://\(host)/a/\(item)", FieldName.sourceURLHost: host,
                        FieldName.success: "1", FieldName.type: "app", "latencyMs": "\(item % 5_000)",
                    ], timestamp: timestamp)
            }
        }
    }

    /// The exported events, decoded, by id.
    static func exported(_ store: SQLiteEventStore) throws -> [String: MeasurementEvent] {
        var data = Data()
        try store.export { data.append(contentsOf: $0) }
        var events: [String: MeasurementEvent] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let event = try NDJSONCodec().decode(String(line))
            events[event.id.description] = event
        }
        return events
    }

    static func expectSame(_ stored: [String: MeasurementEvent], _ written: [MeasurementEvent]) {
        #expect(stored.count == written.count)
        for event in written {
            let back = stored[event.id.description]
            #expect(back?.fields == event.fields, "\(event.id)")
            #expect(back?.name == event.name)
            #expect(back?.timestamp == event.timestamp)
        }
    }

    @Test func aPayloadRoundTripsAndADamagedOneIsRefused() {
        var builder = PackedFields.Builder()
        #expect(builder.isEmpty)
        builder.add(Self.awkward[4], slot: 0)
        builder.add(Self.awkward[6], slot: 2)
        builder.add(#"{"a":"b"}"#, slot: 5)
        #expect(
            PackedFields.unpackArray(builder.bytes) == [Self.awkward[4], nil, Self.awkward[6], nil, nil, #"{"a":"b"}"#])
        #expect(PackedFields.unpackArray(Array(builder.bytes.dropLast())) == nil)
        #expect(PackedFields.unpackArray(builder.bytes + [0]) == nil)
        #expect(PackedFields.unpackArray([0x40]) == nil)
        #expect(PackedFields.unpackArray([]) == nil)
    }

    @Test func aDatabaseUnderTheThresholdOrAskedNotToPackKeepsItsColumnsAndPlainViews() throws {
        let small = TemporaryDatabase()
        try Self.packingStore(small).write(Self.wideEvents(EventPacker.trainingThreshold - 1, seed: 1))
        let large = TemporaryDatabase()
        var plain = SQLiteEventStore.Options()
        plain.packFields = false
        try SQLiteEventStore(path: large.path, options: plain).write(
            Self.wideEvents(EventPacker.trainingThreshold * 2, seed: 1))
        for database in [small, large] {
            // A connection without alstats's functions, as the sqlite3 shell opens it, reads the views.
            let connection = try SQLiteConnection(path: database.path, create: false)
            #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") == 0)
            #expect(try connection.scalarInt("SELECT count(*) FROM event_pack_dictionaries") == 0)
            #expect(try connection.scalarInt("SELECT count(*) FROM nav_in WHERE target_url IS NOT NULL") > 0)
            #expect(try connection.scalarInt("SELECT count(*) FROM event_field WHERE key = 'sessionId'") > 0)
        }
    }

    @Test func aDatabaseAtTheThresholdPacksEveryRowAndLosesNoBit() throws {
        let database = TemporaryDatabase()
        let store = try Self.packingStore(database)
        let events = Self.wideEvents(9_000, seed: 2)
        for start in stride(from: 0, to: 6_000, by: 1_000) {
            try store.write(Array(events[start..<start + 1_000]))
        }
        // The collector's path: encoded on the caller's thread with the dictionary the writer now has.
        _ = try store.writeBatches(encoded: [
            store.encode(Array(events[6_000..<7_500])), store.encode(Array(events[7_500...])),
        ])
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM event_pack_dictionaries") == 1)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") == 8_100)
        #expect(
            try connection.scalarInt(
                "SELECT count(*) FROM events WHERE coalesce(input_url, target_url, referer_url, output_url, source_url, extra) IS NOT NULL"
            ) == 0)
        // Packed rows are much smaller than their fields.
        let packed = try connection.scalarInt("SELECT sum(length(packed)) FROM events")
        let plain = events.reduce(0) { sum, event in
            sum
                + event.fields.filter {
                    EventColumns.bindIndex(of: $0.key).map(PackedFields.slot(ofBindIndex:)) != .some(nil)
                }
                .reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
        }
        #expect(Double(packed) < 0.5 * Double(plain), "\(packed) bytes packed of \(plain)")
        Self.expectSame(try Self.exported(store), events)
    }

    @Test func aSinkAskedToPackPacksWhatComesThroughTheBus() throws {
        let database = TemporaryDatabase()
        var options = SQLiteEventStore.Options()
        options.packFields = true
        let sink = try SQLiteEventSink(path: database.path, options: options)
        let events = Self.wideEvents(6_000, seed: 9)
        try sink.write(events)
        try sink.close()
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") == 5_400)
        Self.expectSame(try Self.exported(SQLiteEventStore(path: database.path)), events)
    }

    @Test func theViewsAndTheRebuildReadPackedRows() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let loss = MeasurementEvent(
            id: EventID(), name: DeviceLoss.eventName, fields: ["reason": "buffer_full", "count": "7"],
            timestamp: 1_763_683_200_000)
        let events = Self.wideEvents(5_000, seed: 3) + [loss]
        try store.write(events)
        #expect(try store.pack())
        let before = try rollupRows(database.path)
        try store.rebuildRollups()
        #expect(try rollupRows(database.path) == before)
        let connection = try SQLiteConnection(path: database.path, create: false)
        try EventPackFunctions.register(on: connection)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") > 4_000)
        let targets = events.compactMap { $0.fields[FieldName.targetURL] }.sorted()
        let select = try connection.prepare("SELECT target_url FROM nav_in ORDER BY target_url")
        var read: [String] = []
        while try select.step() { read.append(select.text(0) ?? "") }
        #expect(read == targets)
        #expect(
            try connection.scalarInt("SELECT count(*) FROM event_field WHERE key = 'sessionId'")
                == events.filter { $0.fields["sessionId"] != nil }.count)
        #expect(
            try connection.scalarInt("SELECT count(*) FROM nav_out WHERE source_url LIKE 'https://%/a/%'")
                == events.filter { $0.name == EventName.navOut }.count)
    }

    @Test func packingADatabaseWrittenBeforeKeepsEveryEventAndLaterWritersPackToo() throws {
        let database = TemporaryDatabase()
        let events = Self.wideEvents(6_000, seed: 4)
        do {
            let store = try SQLiteEventStore(path: database.path)
            try store.write(events)
            let before = try Self.exported(store)
            func bytes() -> Int {
                [database.path, database.path + "-wal"].reduce(0) { total, file in
                    total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0)
                }
            }
            let size = bytes()
            #expect(try store.pack())
            try store.reclaimSpace()
            let packed = bytes()
            #expect(packed < size * 3 / 4, "\(size) → \(packed) bytes")
            Self.expectSame(before, events)
        }
        // Any writer, asked to pack or not, packs into a packed database with its dictionary.
        let store = try SQLiteEventStore(path: database.path)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM event_pack_dictionaries") == 1)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") == 5_400)
        Self.expectSame(try Self.exported(store), events)
        let more = Self.wideEvents(10, seed: 5, start: 1_800_000_000_000)
        try store.write(more)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") == 5_409)
        Self.expectSame(try Self.exported(store), events + more)
        #expect(try store.pack())
    }

    /// Rows of batches encoded before the training (a request's, or an ingest batch's, that read no dictionary) are
    /// packed when their transaction commits; rows stored unpacked some other way are packed by the next
    /// ``SQLiteEventStore/pack()``.
    @Test func rowsStoredUnpackedInAPackedDatabaseArePackedAtCommitOrByALaterPack() throws {
        let database = TemporaryDatabase()
        let store = try Self.packingStore(database)
        let events = Self.wideEvents(5_000, seed: 14)
        try store.write(events)
        let late = Self.wideEvents(50, seed: 15, start: 1_900_000_000_000)
        let connection = try SQLiteConnection(path: database.path, create: false)
        let unpacked = "SELECT count(*) FROM events WHERE packed IS NULL AND extra IS NOT NULL"
        _ = try store.writeBatches(encoded: [EncodedEvents(late, redactor: Redactor(), packer: nil)])
        #expect(try connection.scalarInt(unpacked) == 0)
        Self.expectSame(try Self.exported(SQLiteEventStore(path: database.path)), events + late)
        try connection.execute(
            """
            INSERT INTO events (id, ts_ms, name, input_url, extra)
            VALUES ('raw-1', 1950000000000, 'al_nav_in', 'readly://raw/1', '{"country":"PT"}')
            """)
        // An `al_nav_in` without extra fields is packed too (the test for a deferred open's `extra` was NULL for it,
        // which left every such row plain).
        try connection.execute(
            """
            INSERT INTO events (id, ts_ms, name, input_url, target_url)
            VALUES ('raw-2', 1950000000001, 'al_nav_in', 'readly://raw/2', 'https://go.example/raw/2')
            """)
        let unpackedNavIn = "SELECT count(*) FROM events WHERE packed IS NULL AND id IN ('raw-1', 'raw-2')"
        #expect(try connection.scalarInt(unpacked) == 1)
        #expect(try store.pack())
        #expect(try connection.scalarInt(unpacked) == 0)
        #expect(try connection.scalarInt(unpackedNavIn) == 0)
        #expect(try connection.scalarInt("SELECT count(*) FROM event_pack_dictionaries") == 1)
        let raw = try #require(try Self.exported(SQLiteEventStore(path: database.path))["raw-1"])
        #expect(raw.fields == [FieldName.inputURL: "readly://raw/1", "country": "PT"])
    }

    /// The install path's events (store taps, installs, first opens) and the `al_nav_in` of deferred opens, which the
    /// report's install funnel reads from `extra` through the partial indexes of Migrations/0019, stay unpacked:
    /// written before a pack, by a writer that packs, and when a later pack meets them.
    @Test func theInstallPathsEventsStayUnpackedWhereTheReportReadsThem() throws {
        func installPath(_ prefix: String, at start: Int64) -> [MeasurementEvent] {
            let url =
                "readly://invite?referral=42&ref=mail&al_applink_data=" + String(repeating: "%7B%22t%22", count: 40)
            return [
                MeasurementEvent(
                    id: EventID("\(prefix)-store"), name: EventName.linkStore,
                    fields: ["slug": "invite", "platform": "ios", "click": "AAAAAAAAAAAAAAAAAAAAAA", "crawler": "0"],
                    timestamp: start),
                MeasurementEvent(
                    id: EventID("\(prefix)-install"), name: EventName.linkInstall,
                    fields: ["slug": "invite", "platform": "ios", "delay_ms": "60000"], timestamp: start + 1),
                MeasurementEvent(
                    id: EventID("\(prefix)-first"), name: EventName.firstOpen, fields: ["attributed": "1"],
                    timestamp: start + 2),
                MeasurementEvent(
                    id: EventID("\(prefix)-deferred"), name: EventName.navIn,
                    fields: [
                        FieldName.inputURL: url, FieldName.targetURL: "https://go.example/l/invite?ref=mail",
                        FieldName.deferred: "1", FieldName.version: "1.0",
                    ], timestamp: start + 3),
            ]
        }
        let database = TemporaryDatabase()
        let store = try Self.packingStore(database)
        try store.write(installPath("before", at: 1_763_000_000_000) + Self.wideEvents(5_000, seed: 21))
        try store.write(installPath("after", at: 1_900_000_000_000))
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE packed IS NOT NULL") > 4_000)
        try connection.execute(
            """
            INSERT INTO events (id, ts_ms, name, target_url, extra)
            VALUES ('raw-deferred', 1950000000000, 'al_nav_in', 'https://go.example/l/invite', '{"deferred":"1"}')
            """)
        #expect(try store.pack())
        let installPath = "name IN ('alstats_link_store', 'alstats_link_install', 'alstats_first_open')"
        let deferred = #"name = 'al_nav_in' AND extra GLOB '*"deferred":"1"*'"#
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE (\(installPath)) AND packed IS NULL") == 6)
        #expect(try connection.scalarInt("SELECT count(*) FROM events WHERE \(deferred) AND packed IS NULL") == 3)
        // The report's queries find them through their indexes (INDEXED BY fails when an index cannot serve).
        for name in ["alstats_link_store", "alstats_link_install", "alstats_first_open"] {
            let sql = "SELECT count(*) FROM events INDEXED BY events_install_path WHERE name = '\(name)' AND ts_ms >= 0"
            #expect(try connection.scalarInt(sql) == 2)
        }
        #expect(
            try connection.scalarInt("SELECT count(*) FROM events INDEXED BY events_deferred_opens WHERE \(deferred)")
                == 3)
    }

    @Test func aDatabaseOfTooFewEventsIsNotPackedAndKeepsItsPlainViews() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try store.write(Self.wideEvents(100, seed: 8))
        #expect(try store.pack() == false)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM nav_in") > 0)
    }

    @Test func pushReadsPackedRowsAsTheLinesOfTheirEvents() throws {
        let database = TemporaryDatabase()
        let events = Self.wideEvents(5_000, seed: 7)
        do {
            let store = try Self.packingStore(database)
            try store.write(events)
        }
        let lines = try StoreEventLines(path: database.path)
        var read: [String: MeasurementEvent] = [:]
        var packedLines = 0
        try lines.forEachLine(after: 0, limit: 10_000) { line, _ throws(SQLiteError) in
            guard let event = try? NDJSONCodec().decode(String(decoding: line, as: UTF8.self)) else { return false }
            // Each line is exactly the codec's line for its event, as for a row that is not packed.
            if line == Array(NDJSONCodec.line(for: event).utf8) { packedLines += 1 }
            read[event.id.description] = event
            return true
        }
        #expect(packedLines == events.count)
        Self.expectSame(read, events)
    }

    @Test func aRolledBackPackingLeavesNoRowNamingItsDictionary() throws {
        let database = TemporaryDatabase()
        let store = try Self.packingStore(database)
        let events = Self.wideEvents(6_000, seed: 10)
        // A strict ingest trains and packs within its transaction, then rolls everything back for its bad line.
        let file = database.file("events.ndjson")
        let lines = events.map { NDJSONCodec.line(for: $0) } + ["{not json"]
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let summary = try store.ingest([IngestInput(path: file)], options: IngestOptions(strict: true)) { _ in }
        #expect(!summary.committed)
        // A batch encoded while the rolled-back dictionary was the writer's is refused, not stored unreadable.
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM event_pack_dictionaries") == 0)
        let small = Array(events[..<10])
        try store.write(small)
        // Read on a connection of its own: this one's SQL functions still hold the dictionary they packed with.
        Self.expectSame(try Self.exported(SQLiteEventStore(path: database.path)), small)
        // And packing later trains a dictionary of its own.
        try store.write(Array(events[10...]))
        #expect(try connection.scalarInt("SELECT count(*) FROM event_pack_dictionaries") == 1)
        Self.expectSame(try Self.exported(SQLiteEventStore(path: database.path)), events)
    }

    @Test func aBatchPackedWithADictionaryTheWriterDoesNotHoldIsRefused() throws {
        let database = TemporaryDatabase()
        let store = try Self.packingStore(database)
        try store.write(Self.wideEvents(5_000, seed: 11))
        // A dictionary this database never stored, as a rolled-back training would leave in a request's batch.
        let dictionary = try #require(EventPacker.train(Self.samplePayloads()))
        let stranger = try #require(EventPacker(id: 7, dictionary: dictionary))
        let batch = EncodedEvents(
            Self.wideEvents(3, seed: 12, start: 1_900_000_000_000), redactor: Redactor(), packer: stranger)
        #expect(throws: StoreError.self) { _ = try store.writeBatches(encoded: [batch]) }
        Self.expectSame(try Self.exported(store).filter { $0.value.timestamp >= 1_900_000_000_000 }, [])
    }

    /// Payloads of wide events, to train a dictionary on.
    static func samplePayloads() -> [[UInt8]] {
        wideEvents(2_000, seed: 13).map { event in
            var builder = PackedFields.Builder()
            if let url = event.fields[FieldName.inputURL] { builder.add(url, slot: 0) }
            if let url = event.fields[FieldName.targetURL] { builder.add(url, slot: 1) }
            if let url = event.fields[FieldName.outputURL] { builder.add(url, slot: 3) }
            return builder.bytes
        }
    }

    @Test func aDamagedPackedValueIsAnErrorNotAnotherEvent() throws {
        let database = TemporaryDatabase()
        let store = try Self.packingStore(database)
        try store.write(Self.wideEvents(5_000, seed: 6))
        let connection = try SQLiteConnection(path: database.path, create: false)
        try connection.execute(
            "UPDATE events SET packed = substr(packed, 1, length(packed) - 3) WHERE rowid = (SELECT max(rowid) FROM events WHERE packed IS NOT NULL)"
        )
        #expect(throws: StoreError.self) { _ = try Self.exported(store).count }
    }
}

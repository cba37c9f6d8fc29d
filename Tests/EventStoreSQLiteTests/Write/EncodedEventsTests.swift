import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

@Suite struct EncodedEventsTests {
    /// Batches like a group of requests: catalogue events, link hits and arrivals, a secret (redacted) and a
    /// value that hides one without parsing (replaced whole, counted), duplicates within a batch, across
    /// batches and of an event stored before, text ids and UUIDs, and an empty batch.
    static func requests() -> (earlier: [MeasurementEvent], batches: [[MeasurementEvent]]) {
        let catalogue = sampleEvents(40)
        let hits = (0..<12).map { (index: Int) -> MeasurementEvent in
            let status: String = index % 5 == 0 ? "404" : "200"
            let crawler: String = index % 4 == 0 ? "1" : "0"
            let fields: [String: String] = [
                "slug": "spring-\(index % 3)", "status": status, "crawler": crawler, "visitor": "v\(index % 4)",
                FieldName.ref: "mail",
            ]
            let timestamp: Int64 = 1_763_683_200_000 + Int64(index) * 3_600_000
            return MeasurementEvent(
                id: EventID("hit-\(index)"), name: "alstats_link_hit", fields: fields, timestamp: timestamp)
        }
        let arrivals = (0..<6).map { (index: Int) -> MeasurementEvent in
            let fields: [String: String] = [
                FieldName.targetURL: "https://go.example.com/l/spring-\(index % 2)?ref=mail",
                FieldName.inputURL: "readly://x?access_token=SECRET\(index)&ref=mail",
            ]
            let timestamp: Int64 = 1_763_683_200_000 + Int64(index) * 900_000
            return MeasurementEvent(
                id: EventID("arrival-\(index)"), name: EventName.navIn, fields: fields, timestamp: timestamp)
        }
        let unparsed = MeasurementEvent(
            id: EventID("unparsed"), name: "signup",
            fields: ["note": #"{"\u0061ccess_token":"Tk9hiddenValue1", "cut": "#, "plan": "pro"], timestamp: 5_000)
        let first: [MeasurementEvent] = Array(catalogue[0..<15]) + [catalogue[3], unparsed] + Array(hits[0..<6])
        let second: [MeasurementEvent] = Array(catalogue[10..<30]) + Array(arrivals) + [hits[2]]
        let third: [MeasurementEvent] = Array(catalogue[25..<40]) + Array(hits[6...]) + [catalogue[0]]
        return (Array(catalogue[35..<40]), [first, second, [], third])
    }

    @Test func encodedBatchesStoreWhatEventBatchesStoreWithTheSameCountsAndRollups() throws {
        let (earlier, batches) = Self.requests()
        let plain = TemporaryDatabase()
        let encoded = TemporaryDatabase()
        let plainStore = try SQLiteEventStore(path: plain.path)
        let encodedStore = try SQLiteEventStore(path: encoded.path)
        #expect(try plainStore.writeBatches([earlier]) == [5])
        #expect(try encodedStore.writeBatches(encoded: [encodedStore.encode(earlier)]) == [5])

        let losses: [DropReason: Int] = ["too_large": 2, .valueTruncated: 1]
        let plainCounts = try plainStore.writeBatches(batches, losses: losses)
        let encodedCounts = try encodedStore.writeBatches(
            encoded: batches.map { encodedStore.encode($0) }, losses: losses)
        #expect(encodedCounts == plainCounts)
        // first: 23 events, one a repeat within it; second: 5 of first's catalogue ids and a hit of it again;
        // third: 5 of second's, the 5 stored earlier and one of first's.
        let expected: [Int] = [22, 21, 0, 11]
        #expect(encodedCounts == expected)

        for table in Self.tables {
            let expected = try Self.dump(table, in: plain.path)
            #expect(try Self.dump(table, in: encoded.path) == expected, "table \(table)")
        }
        #expect(try Self.dump("completeness", in: encoded.path).contains("'redacted_unparsed',1"))
        #expect(try Self.dump("link_visitor_day", in: encoded.path).isEmpty == false)
    }

    /// A large write is packed a slice ahead of its inserts, on another thread (PackedSlice): it stores exactly
    /// what the same write stores when it is small enough to be redacted and inserted event by event.
    @Test func aWritePackedAheadStoresWhatAWriteInsertedEventByEventStores() throws {
        let (earlier, batches) = Self.requests()
        let records = [
            DeviceLoss(reason: .bufferFull, count: 12).event(timestamp: 1_763_683_200_000),
            DeviceLoss(reason: "outbox_full", count: 5).event(timestamp: 1_763_683_260_000),
        ]
        let events = batches.flatMap { $0 } + records + [batches[0][0], records[0]]
        let plain = TemporaryDatabase()
        let packed = TemporaryDatabase()
        let plainStore = try SQLiteEventStore(path: plain.path)
        let packedStore = try SQLiteEventStore(path: packed.path)
        packedStore.withConnection { $0.writer.redactionSlice = 8 }  // 77 events: nine slices and a part
        #expect(try plainStore.write(earlier) == 5)
        #expect(try packedStore.write(earlier) == 5)
        let stored = try plainStore.write(events)
        #expect(stored == 56)  // 54 new App Links events (as in the test above) and the two loss records
        #expect(try packedStore.write(events) == stored)
        for table in Self.tables {
            let expected = try Self.dump(table, in: plain.path)
            #expect(try Self.dump(table, in: packed.path) == expected, "table \(table)")
        }
        #expect(try Self.dump("completeness", in: packed.path).contains("'redacted_unparsed',1"))
        #expect(try Self.dump("completeness", in: packed.path).contains(",12"))
        #expect(try Self.dump("link_visitor_day", in: packed.path).isEmpty == false)
    }

    @Test func aRolledBackGroupForgetsItsRedactionCountsAndStoresNothing() throws {
        let database = TemporaryDatabase()
        _ = try SQLiteEventStore(path: database.path)  // created and migrated
        let pages = (try FileManager.default.attributesOfItem(atPath: database.path)[.size] as? Int ?? 0) / 16_384
        let store = try SQLiteEventStore(path: database.path, options: .init(maximumPageCount: pages + 1))
        let (_, batches) = Self.requests()
        let big = (0..<1_000).map {
            MeasurementEvent(
                id: EventID("big-\($0)"), name: "x", fields: ["v": String(repeating: "z", count: 4_000)], timestamp: 1)
        }
        #expect(throws: StoreError.self) {
            try store.writeBatches(encoded: (batches + [big]).map { store.encode($0) }, losses: ["too_large": 1])
        }
        #expect(try Self.dump("events", in: database.path).isEmpty)
        #expect(try Self.dump("completeness", in: database.path).isEmpty)
    }

    @Test func anEncodedBatchIsRedactedAndInIDOrderWithTheFirstOfEqualIDsFirst() {
        let events = [
            MeasurementEvent(id: EventID("b"), name: "x", fields: ["password": "hunter2"], timestamp: 1),
            MeasurementEvent(id: EventID("a"), name: "x", fields: ["n": "1"], timestamp: 2),
            MeasurementEvent(id: EventID("b"), name: "x", fields: ["n": "2"], timestamp: 3),
        ]
        let encoded = EncodedEvents(events, redactor: Redactor(), packer: nil)
        #expect(encoded.rows.map(\.position) == [1, 0, 2])
        #expect(encoded.text(of: encoded.rows[1], at: EventColumns.extraIndex) == #"{"password":"REDACTED"}"#)
        #expect(encoded.conservativeRedactions == 0)
    }

    /// The tables a write changes.
    static let tables = [
        "events", "completeness", "event_rollup", "event_rollup_day", "event_rollup_series", "link_rollup",
        "link_rollup_day", "link_visitor_day", "link_visitor_count",
    ]

    /// Every row of `table` as quoted values, sorted (order of insertion aside), without `updated_ms`.
    static func dump(_ table: String, in path: String) throws -> String {
        let connection = try SQLiteConnection(path: path, create: false)
        let columns =
            try connection.scalarText(
                "SELECT group_concat('quote(' || name || ')', ' || '','' || ') FROM pragma_table_info('\(table)') "
                    + "WHERE name <> 'updated_ms'") ?? "''"
        return try connection.scalarText(
            "SELECT group_concat(r, char(10)) FROM (SELECT \(columns) AS r FROM \(table) ORDER BY r)") ?? ""
    }
}

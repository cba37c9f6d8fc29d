import EventIngest
import EventStoreInterface
import Foundation
import MeasurementEvents
import SQLiteSupport
import Testing

@testable import EventStoreSQLite

/// A line read in place (``NDJSONCodec/scan(_:into:)``) is encoded straight from its bytes
/// (``EncodedEvents/Builder/append(_:position:)-(FlatLine,_)``): its row must be the row of its decoded event,
/// value for value and byte for byte, packed or not, and a line whose event the bytes alone cannot encode must be
/// refused, so that its decoded event is encoded instead.
struct FlatLineRowsTests {
    /// Lines that the scan takes and that encode from their bytes: the shapes of a real feed that are not nested.
    static let taken = [
        #"{"id":"1b614892-5138-415a-ac47-1a8a02326c35","name":"al_nav_in","ts":1763683200021,"fields":{"inputURL":"readly://article/1?ref=email","inputURLScheme":"readly","targetURL":"https://app.example/c/1?ref=email","refererURL":"reddit://feed","refererAppName":"Reddit","ref":"email","version":"1.0","extras":"{\"source\":\"5db188\",\"position\":31}","latencyMs":1870,"country":"BR"}}"#,
        #"{"id":"31677f41-acc0-4f44-bf27-77e7e3338103","name":"al_ref_back_out","ts":"2025-11-21T00:00:00.041121Z","fields":{"outputURL":"pinterest://feed/27131","sourceURL":"https://readly.example.com/p?ref=share","sourceHost":"readly.example.com","success":"1","type":"failed","refererAppName":"Pinterest","ref":"share"}}"#,
        #"{"name":"al_nav_out","ts":"2025-10-06T02:11:01.971+02:00","fields":{"intentData":"readly://article/22171","success":true,"retried":false,"attempt":-3,"note":null,"path":"a\/b\\c"},"type":"track","sentAt":"2025-10-06T00:11:03Z","retries":2,"ok":true,"gone":null}"#,
        #"{"id":"legacy-7","name":"al_nav_out","ts":5,"fields":{"success":"yes","error":"timeout","sourceURLHost":"h.example","outputURLScheme":"fb","sourceApplication":"com.example"}}"#,
        #"{"name":"signup","ts":1763683200000,"fields":{}}"#,
        #"{"name":"signup","ts":1763683200001,"fields":null}"#,
        #"{"name":"alstats_first_open","ts":1763683200000,"fields":{"token":"t-1","installed":"1"}}"#,
        #"{"name":"al_nav_in","ts":1763683200000,"fields":{"targetURL":"https://app.example/x","deferred":"1","token":"t"}}"#,
        #"{"name":"al_nav_in","ts":1763683200000,"fields":{"targetURL":"https://app.example/x","deferred":"0"}}"#,
        #"{"name":"al_nav_in","ts":1763683200002,"fields":{"ref":"ad","device":{"model":"Pixel 4","os":{"name":"Android","version":"12"}},"extras":{"position":31,"promoted":true,"source":"8acef8"},"tags":["new","sale"]},"context":{"library":{"name":"analytics","version":"2.1"},"locale":"en_US"}}"#,
    ]

    /// Lines that the scan takes whose events the bytes alone do not encode: a secret to redact, a hit of a hosted
    /// link, an arrival at a link URL, a device's loss record.
    static let refused = [
        #"{"name":"al_nav_in","ts":1,"fields":{"targetURL":"https://app.example/x?access_token=abc"}}"#,
        #"{"name":"al_nav_in","ts":1,"fields":{"password":"hunter2"}}"#,
        #"{"name":"alstats_link_hit","ts":1,"fields":{"slug":"invite","status":"200"}}"#,
        #"{"name":"al_nav_in","ts":1,"fields":{"targetURL":"https://go.example.com/l/invite?ref=x"}}"#,
        #"{"name":"alstats_loss","ts":1,"fields":{"reason":"buffer_full","count":"3"}}"#,
    ]

    /// The values bound for `row`, by parameter.
    static func entries(_ encoded: EncodedEvents, _ row: EncodedEvents.Row) -> [String] {
        encoded.values.entries(in: row.values).map { "\($0.index)\($0.isBlob ? "b" : "t"):\($0.bytes)" }
    }

    /// Encodes `lines` both ways with `packer`; the rows must agree.
    static func compare(_ lines: [String], packer: EventPacker?) throws {
        let codec = NDJSONCodec()
        var flat = EncodedEvents.Builder(redactor: Redactor(), packer: packer, capacity: lines.count)
        var decoded = EncodedEvents.Builder(redactor: Redactor(), packer: packer, capacity: lines.count)
        var line = FlatLine()
        for (position, text) in lines.enumerated() {
            let bytes = Array(text.utf8)
            let taken = bytes.withUnsafeBufferPointer { buffer in
                codec.scan(buffer, into: &line) && flat.append(line, position: Int32(position))
            }
            #expect(taken, "\(text)")
            decoded.append(try codec.decode(text), position: Int32(position))
        }
        same(flat.finish(), decoded.finish(), lines: lines)
    }

    /// Whether two encodings of `lines` hold the same rows.
    static func same(_ mine: EncodedEvents, _ theirs: EncodedEvents, lines: [String]) {
        #expect(mine.count == theirs.count)
        for (left, right) in zip(mine.rows, theirs.rows) {
            #expect(left.id == right.id && left.key == right.key && left.position == right.position)
            #expect(left.timestamp == right.timestamp && left.success == right.success)
            #expect(left.link == right.link && (left.deviceLoss == nil) == (right.deviceLoss == nil))
            #expect(mine.groups[Int(left.group)] == theirs.groups[Int(right.group)])
            #expect(entries(mine, left) == entries(theirs, right), "\(lines[Int(left.position)])")
        }
    }

    @Test func aLineReadInPlaceGivesTheRowOfItsDecodedEvent() throws {
        try Self.compare(Self.taken, packer: nil)
    }

    @Test func aPackedLineReadInPlaceGivesThePackedRowOfItsDecodedEvent() throws {
        let dictionary = try #require(EventPacker.train(PackedFieldsTests.samplePayloads()))
        let packer = try #require(EventPacker(id: 3, dictionary: dictionary))
        try Self.compare(Self.taken, packer: packer)
        // The install path's events stay unpacked (their `extra` is read through the partial indexes).
        var builder = EncodedEvents.Builder(redactor: Redactor(), packer: packer, capacity: 1)
        var line = FlatLine()
        // The line read in place points into the bytes: it is appended while they are at hand.
        let appended = Array(Self.taken[6].utf8).withUnsafeBufferPointer {
            NDJSONCodec().scan($0, into: &line) && builder.append(line, position: 0)
        }
        #expect(appended)
        let batch = builder.finish()
        #expect(batch.text(of: batch.rows[0], at: EventColumns.extraIndex) == #"{"installed":"1","token":"t-1"}"#)
    }

    @Test(arguments: [false, true])
    func aRequestsLinesReadInPlaceAreEncodedAsItsDecodedEvents(encodedAsRead: Bool) throws {
        // A collector's request: the lines read in place encoded as they are read (or kept as bytes), the others
        // decoded, in one order.
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let codec = NDJSONCodec()
        let lines =
            Self.taken + Self.refused + [#"{"name":"a","ts":1,"fields":{"t":[{"b":1}],"f":0.5}}"#, Self.taken[0]]
        var scanned = ScannedLines(codec: codec, encoder: encodedAsRead ? store.makeFlatLineEncoder() : nil)
        var events: [MeasurementEvent] = []
        var positions: [Int32] = []
        var line = FlatLine()
        for (position, text) in lines.enumerated() {
            let bytes = Array(text.utf8)
            let read = bytes.withUnsafeBufferPointer { buffer in
                guard codec.scan(buffer, into: &line) else { return false }
                scanned.append(buffer, scanned: line, position: Int32(position))
                return true
            }
            if !read {
                events.append(try codec.decode(text))
                positions.append(Int32(position))
            }
        }
        #expect(scanned.count == lines.count - 1)
        // The encoder takes the lines whose rows their bytes make (the refused ones are kept, to be decoded).
        #expect(scanned.keptCount == (encodedAsRead ? Self.refused.count : lines.count - 1))
        let mine = store.prepare(events, positions: positions, lines: scanned)
        Self.same(mine, store.prepare(try lines.map { try codec.decode($0) }), lines: lines)
        // The line given twice is one event, the first stored (the second a duplicate).
        _ = try store.writeBatches(encoded: [mine])
        #expect(
            try EncodedEventsTests.dump("events", in: database.path).split(separator: "\n").count == lines.count - 1)
    }

    @Test(arguments: refused)
    func aLineWhoseEventTheBytesCannotEncodeIsLeftToTheDecoder(_ text: String) {
        var builder = EncodedEvents.Builder(redactor: Redactor(), packer: nil, capacity: 1)
        var line = FlatLine()
        let (scanned, appended) = Array(text.utf8).withUnsafeBufferPointer {
            let scanned = NDJSONCodec().scan($0, into: &line)
            return (scanned, scanned && builder.append(line, position: 0))
        }
        #expect(scanned)
        #expect(!appended)
        #expect(builder.count == 0)
    }

    @Test func anIngestOfLinesReadInPlaceStoresWhatTheirDecodedEventsStore() throws {
        // The same lines ingested, and written as decoded events through the store's batch write: the same tables.
        let lines = Self.taken + Self.refused
        let ingested = TemporaryDatabase()
        let written = TemporaryDatabase()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("flat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("lines.ndjson")
        try (lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: ingested.path)
        let summary = try store.ingest([IngestInput(path: file.path)], onInvalidLine: { _ in })
        #expect(summary.stored == lines.count)
        let other = try SQLiteEventStore(path: written.path)
        _ = try other.writeBatches([try lines.map { try NDJSONCodec().decode($0) }], losses: [:])
        for table in EncodedEventsTests.tables {
            #expect(
                try EncodedEventsTests.dump(table, in: ingested.path)
                    == EncodedEventsTests.dump(table, in: written.path),
                "\(table)")
        }
    }
}

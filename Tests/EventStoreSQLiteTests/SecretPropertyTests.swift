import EventIngest
import Foundation
import MeasurementEvents
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// The property of issue 11: whatever the place and the encoding of a token, no byte of it reaches the
/// database file, its WAL, the export or a view, through the sink or through ingest; and a consumer
/// decoding what was stored still finds the target, the ref and the extras.
///
/// CI runs a fixed seed; `ALSTATS_PROPERTY_COUNT=20000 ALSTATS_PROPERTY_SEED=7 swift test --filter
/// SecretPropertyTests` runs more.
struct SecretPropertyTests {
    static let count = ProcessInfo.processInfo.environment["ALSTATS_PROPERTY_COUNT"].flatMap(Int.init) ?? 400
    static let seed = ProcessInfo.processInfo.environment["ALSTATS_PROPERTY_SEED"].flatMap(UInt64.init) ?? 11

    static func cases(seed: UInt64) -> [SecretCorpus.Case] {
        var corpus = SecretCorpus(seed: seed)
        return (0..<count).map { corpus.makeCase(index: $0) }
    }

    @Test func noTokenReachesStorageThroughTheSink() throws {
        let cases = Self.cases(seed: Self.seed)
        let database = TemporaryDatabase()
        let bus = MeasurementEventBus()
        bus.attach(try SQLiteEventSink(path: database.path), options: ObserverOptions(bufferCapacity: 1 << 20))
        for item in cases { bus.publish(item.event) }
        bus.flush()
        try Self.checkStorage(database: database, cases: cases)
        bus.close()
    }

    /// A batch of more than two redaction slices is redacted a slice ahead of its inserts, on another thread
    /// (EventWriter.insertNewRedactingAhead): every slice, the last partial one included, is redacted.
    @Test func noTokenReachesStorageThroughABatchRedactedAheadOfItsInserts() throws {
        let cases = Self.cases(seed: Self.seed &+ 3)
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        store.withConnection { $0.writer.redactionSlice = 64 }  // 400 cases: six slices and a part
        #expect(try store.write(cases.map(\.event)) == cases.count)
        try Self.checkStorage(database: database, cases: cases)
    }

    @Test func noTokenReachesStorageThroughIngest() throws {
        let cases = Self.cases(seed: Self.seed &+ 1)
        let database = TemporaryDatabase()
        var corpus = SecretCorpus(seed: Self.seed &+ 2)
        var text = ""
        for item in cases {
            // Keys and values as JSON strings with random \u escapes, as other producers write them.
            let fields = item.event.fields.sorted { $0.key < $1.key }
                .map { corpus.jsonString($0.key) + ":" + corpus.jsonString($0.value) }
            text += #"{"id":"\#(item.event.id.description)","name":"al_nav_in","ts":\#(item.event.timestamp),"#
            text += #""fields":{"# + fields.joined(separator: ",") + "}}\n"
        }
        let file = database.file("secrets.ndjson")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        var errors: [IngestError] = []
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { errors.append($0) })
        #expect(errors.isEmpty)
        #expect(summary.stored == cases.count)
        try Self.checkStorage(database: database, cases: cases)
    }

    @Test func aValueThatHidesASecretButDoesNotParseIsReplacedWholeAndCounted() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let broken = #"{"\u0061ccess_token":"Tk9hiddenValue1", "cut": "#
        let event = MeasurementEvent(
            id: EventID("unparsed-1"), name: "signup", fields: ["note": broken, "plan": "pro"], timestamp: 1_000)
        #expect(try store.write([event]) == 1)
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarText("SELECT value FROM event_field WHERE key = 'note'") == "REDACTED")
        #expect(try connection.scalarText("SELECT value FROM event_field WHERE key = 'plan'") == "pro")
        let counted = try connection.scalarInt(
            "SELECT count FROM completeness WHERE kind = 'altered' AND reason = 'redacted_unparsed'")
        #expect(counted == 1)
    }

    /// The checks shared by both paths, run while the writer is open (so the WAL is there too).
    static func checkStorage(database: TemporaryDatabase, cases: [SecretCorpus.Case]) throws {
        let store = try SQLiteEventStore(path: database.path)
        var export = Data()
        try store.export { export.append(contentsOf: $0) }
        var stored = Data()
        for suffix in ["", "-wal"] { stored += TemporaryDatabase.bytes(database.path + suffix) }
        let views = try viewText(database.path)
        #expect(!stored.isEmpty)
        // Each text as written and as decoded, searched for every run.
        let texts = [stored, export, Data(views.utf8)].flatMap { [$0, Data(independentDecode([UInt8]($0)))] }
        for item in cases {
            for run in item.tokenRuns {
                let leaked = texts.contains { leaks(run, in: $0) }
                #expect(!leaked, "token of \(item.place) leaked: \(item.event.fields)")
            }
        }
        let exported = try exportedFields(export)
        for item in cases {
            guard let fields = exported[item.event.id.description] else {
                Issue.record("event \(item.event.id) was not stored")
                continue
            }
            checkSurvival(item, stored: fields)
        }
    }

    /// A consumer still decodes the target, ref and extras of what was stored.
    static func checkSurvival(_ item: SecretCorpus.Case, stored fields: [String: String]) {
        #expect(fields[FieldName.ref] == "feed")
        #expect(fields["plan"] == "pro")
        guard item.appLinkDataLayers > 0, let url = fields[FieldName.inputURL] else { return }
        #expect(ConsumerDecoding.queryPairs(url)["ref"] == "feed")
        guard let data = ConsumerDecoding.appLinkData(url, layers: item.appLinkDataLayers) else {
            Issue.record(
                "al_applink_data no longer decodes for \(item.place): \(url) from \(item.event.fields[FieldName.inputURL] ?? "")"
            )
            return
        }
        let target = data["target_url"] as? String ?? ""
        if item.place == .targetURL {
            #expect(ConsumerDecoding.queryPairs(target)["ref"] == "feed")
            #expect(ConsumerDecoding.queryPairs(target)["lang"] == "en")
        } else {
            #expect(target == SecretCorpus.target)
        }
        #expect((data["extras"] as? [String: Any])?["app_id"] as? String == "123")
        let referer = data["referer_app_link"] as? [String: Any]
        #expect(referer?["app_name"] as? String == "Facebook")
        if item.place != .refererURL { #expect(referer?["url"] as? String == SecretCorpus.refererURL) }
    }

    /// Whether `run` shows in `bytes` as UTF-8 or UTF-16 (little- or big-endian).
    static func leaks(_ run: String, in bytes: Data) -> Bool {
        let forms = [
            Array(run.utf8), run.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] },
            run.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] },
        ]
        return forms.contains { bytes.range(of: Data($0)) != nil }
    }

    /// Percent escapes (either case) and ASCII `\uXXXX` escapes decoded until nothing changes.
    static func independentDecode(_ bytes: [UInt8]) -> [UInt8] {
        func hex(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 48...57: return byte - 48
            case 65...70: return byte - 55
            case 97...102: return byte - 87
            default: return nil
            }
        }
        var current = bytes
        for _ in 0..<6 {
            var next: [UInt8] = []
            next.reserveCapacity(current.count)
            var index = 0
            while index < current.count {
                if current[index] == 37, index + 2 < current.count, let high = hex(current[index + 1]),
                    let low = hex(current[index + 2])
                {
                    next.append(high << 4 | low)
                    index += 3
                } else if current[index] == 92, index + 5 < current.count, current[index + 1] == 117,
                    current[index + 2] == 48, current[index + 3] == 48, let high = hex(current[index + 4]),
                    let low = hex(current[index + 5])
                {
                    next.append(high << 4 | low)
                    index += 6
                } else {
                    next.append(current[index])
                    index += 1
                }
            }
            if next == current { break }
            current = next
        }
        return current
    }

    /// Every value of the views, one per line.
    static func viewText(_ path: String) throws -> String {
        let connection = try SQLiteConnection(path: path, create: false)
        var lines: [String] = []
        for view in ["event_field", "nav_in"] {
            let statement = try connection.prepare("SELECT * FROM \(view)")
            while try statement.step() {
                let columns = Int32(statement.columnCount)
                lines.append((0..<columns).map { statement.text($0) ?? "" }.joined(separator: "|"))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The fields of each exported event, by id.
    static func exportedFields(_ export: Data) throws -> [String: [String: String]] {
        var result: [String: [String: String]] = [:]
        for line in export.split(separator: 0x0A) {
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            if let id = object?["id"] as? String { result[id] = object?["fields"] as? [String: String] ?? [:] }
        }
        return result
    }
}

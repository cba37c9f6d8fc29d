import EventIngest
import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

struct IngestExportTests {
    /// Values that often break a round trip (no NUL: every reader of NDJSON refuses one, `nul_character`).
    static let awkward = [
        "emoji 🎉👩🏽‍💻", "עברית ومرحبا", #"quote " and 'single'"#, "new\nline\r\nand\ttab", #"back\slash \\ \u0041"#,
        "", "control\u{1}byte\u{7F}", "\u{2028}\u{2029}", "REDACTED-like but not a secret",
    ]

    static func awkwardEvents() -> [MeasurementEvent] {
        var events = sampleEvents(12) + sampleEvents(3, idPrefix: "Text ID 🙂")
        for (index, value) in awkward.enumerated() {
            events.append(
                MeasurementEvent(
                    id: index % 2 == 0 ? EventID("0192F5C3-8A1B-7C4D-9E2F-00000000000\(index)") : EventID(),
                    name: index % 3 == 0 ? "custom \(value)" : EventName.navOut,
                    fields: [
                        FieldName.ref: value, FieldName.error: value, "free/\(value)": value, FieldName.success: value,
                    ],
                    timestamp: 1_763_683_200_000 + Int64(index) - 5))
        }
        return events
    }

    static func exportText(_ store: SQLiteEventStore) throws -> Data {
        var data = Data()
        try store.export { data.append(contentsOf: $0) }
        return data
    }

    @Test func exportThenIngestRoundTripsByteForByte() throws {
        let source = TemporaryDatabase()
        let store = try SQLiteEventStore(path: source.path)
        try store.write(Self.awkwardEvents())
        let exported = try Self.exportText(store)
        let file = source.file("events.ndjson")
        try exported.write(to: URL(fileURLWithPath: file))

        let target = TemporaryDatabase()
        let copy = try SQLiteEventStore(path: target.path)
        var errors: [IngestError] = []
        let summary = try copy.ingest([IngestInput(path: file)], onInvalidLine: { errors.append($0) })
        #expect(errors.isEmpty)
        #expect(summary.stored == Self.awkwardEvents().count)
        #expect(try Self.exportText(copy) == exported)
        #expect(try rollupRows(target.path) == (try rollupRows(source.path)))
    }

    @Test func ingestingTheSameFileAgainChangesNothing() throws {
        let database = TemporaryDatabase()
        let file = database.file("events.ndjson")
        let lines = [
            #"{"name":"al_nav_in","ts":1763683200000,"fields":{"ref":"a","refererAppName":"X"}}"#,
            #"{"name":"al_nav_out","ts":"2025-11-21T00:00:01Z","fields":{"success":"1","type":"app"}}"#,
            #"{"id":"given","name":"signup","ts":1763683200002}"#,
        ]
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        let first = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in })
        let exported = try Self.exportText(store)
        let rollups = try rollupRows(database.path)
        let second = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in })
        #expect(first.stored == 3)
        #expect(second.stored == 0)
        #expect(second.duplicates == 3)
        #expect(try Self.exportText(store) == exported)
        #expect(try rollupRows(database.path) == rollups)
    }

    @Test func invalidLinesAreReportedAsFileLineReasonWhileValidLinesAreCommitted() throws {
        let database = TemporaryDatabase()
        let file = database.file("mixed.ndjson")
        var data = Data()
        data += Data(#"{"name":"a","ts":1}"#.utf8) + [0x0A]
        data += Data("not json".utf8) + [0x0A]
        data += [0x0A]  // blank lines are skipped, but counted for numbering
        data += Data(#"{"name":"b","ts":2,"fields":{"k":""#.utf8) + [0xFF, 0xFE] + Data(#""}}"#.utf8) + [0x0A]
        data += Data(#"{"name":"c","ts":3}"#.utf8) + [0x0D, 0x0A]
        data += Data(#"{"name":"","ts":3}"#.utf8)  // no final newline
        try data.write(to: URL(fileURLWithPath: file))
        let store = try SQLiteEventStore(path: database.path)
        var errors: [String] = []
        let summary = try store.ingest([IngestInput(path: file)], onInvalidLine: { errors.append($0.description) })
        #expect(errors.count == 3)
        #expect(errors[0].hasPrefix("\(file):2: invalid JSON"))
        #expect(errors[1].hasPrefix("\(file):4: "))
        #expect(errors[2].hasPrefix("\(file):6: \"name\""))
        #expect(summary.stored == 2)
        #expect(try store.count() == 2)

        let strict = TemporaryDatabase()
        let strictStore = try SQLiteEventStore(path: strict.path)
        let refused = try strictStore.ingest(
            [IngestInput(path: file)], options: IngestOptions(strict: true), onInvalidLine: { _ in })
        #expect(!refused.committed)
        #expect(try strictStore.count() == 0)
    }

    @Test func plantedTokensAreAbsentFromTheDatabaseItsWALAndTheExport() throws {
        let database = TemporaryDatabase()
        let file = database.file("secrets.ndjson")
        let lines = [
            #"{"name":"al_nav_in","ts":1,"fields":{"inputURL":"fb1://authorize#expires_in=0&access_token=PLANTEDaaa1&target_url=x","extras":{"fb_access_token":"PLANTEDbbb2"}}}"#,
            #"{"name":"al_nav_in","ts":2,"fields":{"inputURL":"ex://a?al_applink_data=%7B%22extras%22%3A%7B%22FB_ACCESS_TOKEN%22%3A%22PLANTEDccc3%22%7D%7D"}}"#,
            #"{"name":"al_nav_out","ts":3,"fields":{"outputURL":"ex://b?al_applink_data=%257B%2522refresh_token%2522%253A%2522PLANTEDddd4%2522%257D&code=PLANTEDeee5"}}"#,
        ]
        try lines.joined(separator: "\n").write(toFile: file, atomically: true, encoding: .utf8)
        let store = try SQLiteEventStore(path: database.path)
        _ = try store.ingest([IngestInput(path: file)], onInvalidLine: { _ in })
        let exported = try Self.exportText(store)
        let artefacts = [
            TemporaryDatabase.bytes(database.path), TemporaryDatabase.bytes(database.path + "-wal"), exported,
        ]
        #expect(!artefacts[1].isEmpty)
        for token in ["PLANTEDaaa1", "PLANTEDbbb2", "PLANTEDccc3", "PLANTEDddd4", "PLANTEDeee5"] {
            for bytes in artefacts { #expect(bytes.range(of: Data(token.utf8)) == nil, "\(token) leaked") }
        }
        #expect(exported.range(of: Data("REDACTED".utf8)) != nil)
    }

    @Test func exportKeepsOnlyTheWindowAsked() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try store.write(sampleEvents(10))  // one every 61 s from 2025-11-21T00:00:00Z
        var lines = 0
        let count = try store.export(since: 1_763_683_200_000 + 61_000, until: 1_763_683_200_000 + 3 * 61_000) {
            lines += $0.filter { $0 == 0x0A }.count
        }
        #expect(count == 2)
        #expect(lines == 2)
    }
}

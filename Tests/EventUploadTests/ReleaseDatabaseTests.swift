import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import EventUpload
@testable import SQLiteSupport

/// A database written by the release before the uploader had a schema of its own (Fixtures/schema-v15-upload.sqlite:
/// SQLiteEventStore's schema 15, whose migrations made the uploader's tables) keeps every row when the uploader adopts
/// its tables, and uploads them.
///
/// The fixture was written by that release's code (commit 9893988) on one file, as an app whose outbox is its
/// alstats store: 30 events stored (`numberedEvents(30, start: 1000)`), a push to `http://127.0.0.1:9/v1/events`
/// answered for the first 10 with 2 lines rejected as `upload_rejected:missing_ts`; 15 events committed to the
/// outbox (`numberedEvents(15)`) and the first 3 acknowledged; a loss of 3 `buffer_full` turned into a record by a
/// batch read and never answered; then a loss of 2 `sink_error` still counted.
struct ReleaseDatabaseTests {
    static let destination = "http://127.0.0.1:9/v1/events"
    static let uploaderTables = [
        "upload_outbox", "upload_outbox_size", "upload_loss_counts", "upload_loss_records", "push_cursor",
        "push_losses",
    ]

    /// A copy of the fixture in `folder`.
    static func copyFixture(to folder: TemporaryFolder) throws -> String {
        let path = folder.file("phone.sqlite")
        try FileManager.default.copyItem(
            atPath: Repository.path("Tests/EventUploadTests/Fixtures/schema-v15-upload.sqlite"), toPath: path)
        return path
    }

    /// Every row of the uploader's tables, as text, table by table.
    static func rows(_ path: String) throws -> [String] {
        let connection = try SQLiteConnection(path: path, create: false)
        var rows: [String] = []
        for table in uploaderTables {
            let statement = try connection.prepare("SELECT * FROM \(table) ORDER BY 1")
            while try statement.step() {
                let values = (0..<statement.columnCount).map { statement.text($0) ?? "NULL" }
                rows.append(table + "|" + values.joined(separator: "|"))
            }
        }
        return rows
    }

    @Test func openingAReleaseDatabaseKeepsEveryRowOfTheUploadersTables() throws {
        let folder = TemporaryFolder()
        let path = try Self.copyFixture(to: folder)
        let before = try Self.rows(path)
        #expect(before.filter { $0.hasPrefix("upload_outbox|") }.count == 12)
        #expect(before.contains("upload_outbox_size|1|12|\(Self.outboxBytes(before))"))
        #expect(before.contains("upload_loss_counts|sink_error|2"))
        #expect(before.filter { $0.hasPrefix("upload_loss_records|") }.count == 1)
        #expect(before.contains { $0.hasPrefix("push_cursor|\(Self.destination)|10|") })
        #expect(before.contains { $0.hasPrefix("push_losses|\(Self.destination)|upload_rejected:missing_ts|2|") })
        do {
            let sink = try HTTPEventSink(
                .init(collector: URL(string: Self.destination)!, writeKey: "k", outboxPath: path),
                transport: ScriptedTransport([]))
            #expect(sink.status.pending == 12)
            try sink.close()
        }
        #expect(try Self.rows(path) == before)
        let connection = try SQLiteConnection(path: path, create: false)
        #expect(
            try connection.scalarInt("SELECT max(version) FROM upload_schema_migrations")
                == Int64(UploadSQL.migrator.latestVersion))
        // The uploader migrates its own tables only: the store's schema stays the release's.
        #expect(try connection.scalarInt("PRAGMA user_version") == 15)
        #expect(try SQLiteEventStore(path: path).completeness()["dropped"]?["buffer_full"] == 3)
    }

    @Test func aReleaseDatabaseUploadsItsOutboxAndLossesAndPushesOnFromItsCursor() async throws {
        let folder = TemporaryFolder()
        let path = try Self.copyFixture(to: folder)
        let transport = ScriptedTransport([.accept])
        let sink = try HTTPEventSink(
            .init(collector: URL(string: Self.destination)!, writeKey: "k", outboxPath: path),
            transport: transport, clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
        try await sink.upload()
        let sent = transport.requests.flatMap(\.lines)
        let losses = sent.compactMap { try? NDJSONCodec().decode($0) }.filter { $0.name == DeviceLoss.eventName }
        #expect(losses.map { $0.fields["reason"] ?? "" }.sorted() == ["buffer_full", "sink_error"])
        #expect(losses.map { $0.fields["count"] ?? "" }.sorted() == ["2", "3"])
        let indexes = sent.compactMap { try? NDJSONCodec().decode($0).fields["index"] }
        #expect(indexes == (3..<15).map(String.init))
        #expect(sink.status.pending == 0)
        try sink.close()

        let pushTransport = ScriptedTransport([.accept])
        let pusher = try EventPusher(
            source: try StoreEventLines(path: path), collector: URL(string: Self.destination)!, writeKey: "k",
            policy: UploadPolicy(giveUpAfter: .seconds(60)), batchesInFlight: 1, transport: pushTransport,
            clock: ManualUploadClock(), random: FixedRandom(unit: 0.5))
        #expect(pusher.status.pending == 20)
        try await pusher.push()
        let pushed = pushTransport.requests.flatMap(\.lines).compactMap {
            try? NDJSONCodec().decode($0).fields["index"]
        }
        #expect(pushed == (1010..<1030).map(String.init))
        #expect(try pusher.rejectedLines() == ["upload_rejected:missing_ts": 2])
    }

    /// The sum of the `bytes` of the outbox's rows among `rows`.
    static func outboxBytes(_ rows: [String]) -> Int {
        rows.filter { $0.hasPrefix("upload_outbox|") }.map { Int($0.split(separator: "|").last ?? "") ?? 0 }
            .reduce(0, +)
    }
}

import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import EventUpload
@testable import SQLiteSupport

/// `upload_outbox_size` is kept by the outbox's own statements (migration 0015 dropped the per-row triggers):
/// after every kind of insert and delete it must hold exactly the rows' count and bytes.
@Suite struct OutboxSizeTests {
    /// The size row and the rows it counts, read on a connection of their own.
    static func sizes(_ path: String) throws -> (kept: [Int64], counted: [Int64]) {
        let connection = try SQLiteConnection(path: path, create: false)
        let kept = [
            try connection.scalarInt("SELECT count(*) FROM upload_outbox"),
            try connection.scalarInt("SELECT coalesce(sum(bytes), 0) FROM upload_outbox"),
            try connection.scalarInt("SELECT coalesce(sum(length(CAST(line AS BLOB)) + 1), 0) FROM upload_outbox"),
        ]
        let counted = [
            try connection.scalarInt("SELECT events FROM upload_outbox_size"),
            try connection.scalarInt("SELECT bytes FROM upload_outbox_size"),
            try connection.scalarInt("SELECT bytes FROM upload_outbox_size"),
        ]
        return (kept, counted)
    }

    @Test func commitsEvictionsAndDeletesKeepTheSizeExact() async throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        // Commits of 1, 63, 64, 65 and 700 lines: the single-row and the 64-row inserts, and their mixes.
        let outbox = try UploadOutbox(path: path, maximumBytes: 1 << 30)
        var start = 0
        for count in [1, 63, 64, 65, 700] {
            try outbox.append(numberedEvents(count, start: start))
            _ = try outbox.commit()
            start += count
            let (kept, counted) = try Self.sizes(path)
            #expect(kept == counted)
            #expect(kept[0] == Int64(start))
        }
        // A batch finished, then the same batch finished again by a second outbox on the file (a restarted
        // process whose receipt came for rows the first already deleted): the second subtracts nothing.
        let batch = try #require(try outbox.nextBatch(after: nil, maximumEvents: 500, maximumBytes: 512 << 10))
        try outbox.finish(batch, rejected: [:], unseen: false)
        var (kept, counted) = try Self.sizes(path)
        #expect(kept == counted && kept[0] == Int64(start - 500))
        let second = try UploadOutbox(path: path, maximumBytes: 1 << 30)
        try second.finish(batch, rejected: [:], unseen: false)
        (kept, counted) = try Self.sizes(path)
        #expect(kept == counted && kept[0] == Int64(start - 500))
        // Half of the next batch finished on its own, as after a split.
        let next = try #require(try second.nextBatch(after: nil, maximumEvents: 500, maximumBytes: 512 << 10))
        try second.finish(next.halves.0, rejected: [:], unseen: false)
        (kept, counted) = try Self.sizes(path)
        #expect(kept == counted && kept[0] == Int64(start - 500 - next.count / 2))
        second.endUploading()
    }

    @Test func aFullOutboxEvictsAndCountsExactly() throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        let outbox = try UploadOutbox(path: path, maximumBytes: 30_000)
        var evicted = 0
        for start in stride(from: 0, to: 600, by: 75) {
            try outbox.append(numberedEvents(75, start: start))
            evicted += try outbox.commit()
            let (kept, counted) = try Self.sizes(path)
            #expect(kept == counted)
            #expect(kept[1] <= 30_000)
            #expect(kept[0] + Int64(evicted) == Int64(start + 75))
        }
        #expect(evicted > 0)
    }

    /// An outbox written at the store's schema 14 (the triggers counting) keeps its totals when the uploader opens
    /// it with its own schema (`Migrations/upload/0002`), and the triggers are gone: the outbox's statements count
    /// alone, once.
    @Test func anOutboxOfSchemaFourteenKeepsItsTotalsAndLosesItsTriggers() throws {
        let folder = TemporaryFolder()
        let path = folder.file("outbox.sqlite")
        do {
            let connection = try SQLiteConnection(path: path, create: true)
            try EventIDKey.register(on: connection)
            let fourteen = Array(EmbeddedSQL.migrations.prefix { ($0.migrationVersion ?? 0) <= 14 })
            try SchemaMigrator(migrations: fourteen).migrate(connection)
            let insert = try connection.prepare("INSERT INTO upload_outbox (line, bytes) VALUES (?1, ?2)")
            for event in numberedEvents(40) {
                let line = NDJSONCodec.line(for: event)
                insert.bind(1, line)
                insert.bind(2, Int64(line.utf8.count + 1))
                try insert.run()
            }
            try connection.execute("DELETE FROM upload_outbox WHERE seq <= 10")
            #expect(try connection.scalarInt("SELECT events FROM upload_outbox_size") == 30)
        }
        let outbox = try UploadOutbox(path: path, maximumBytes: 1 << 30)
        let connection = try SQLiteConnection(path: path, create: false)
        let triggers = "SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'upload_outbox'"
        #expect(try connection.scalarInt(triggers) == 0)
        var (kept, counted) = try Self.sizes(path)
        #expect(kept == counted && kept[0] == 30)
        try outbox.append(numberedEvents(20, start: 40))
        _ = try outbox.commit()
        (kept, counted) = try Self.sizes(path)
        #expect(kept == counted && kept[0] == 50)
        #expect(try outbox.pendingCount() == 50)
    }
}

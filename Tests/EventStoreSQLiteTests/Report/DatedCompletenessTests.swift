import Foundation
import MeasurementEvents
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite
@testable import SQLiteSupport

/// Each loss is counted on the UTC day it happened (Migrations/0020_date_completeness.sql), so that a report's
/// window shows its own losses and no other window's.
struct DatedCompletenessTests {
    static let day: Int64 = 86_400_000
    /// 2025-11-21T00:00:00Z.
    static let friday: Int64 = 1_763_683_200_000
    /// 2025-11-19T00:00:00Z.
    static let wednesday = friday - 2 * day

    /// The completeness rows of the report for `[since, until)`.
    static func completeness(
        _ store: SQLiteEventStore, _ since: Int64?, _ until: Int64?
    ) throws -> [String: [String: Int]] {
        try ReportReader(store: store).rows(for: ReportQuery(since: since, until: until)).completeness
    }

    @Test func aLossCountsOnTheDayItWasCountedAndADevicesRecordOnTheDayOfTheRecord() throws {
        let database = TemporaryDatabase()
        let clock = ManualEventClock(milliseconds: Self.friday + 10 * 3_600_000)
        var options = SQLiteEventStore.Options()
        options.clock = clock
        let store = try SQLiteEventStore(path: database.path, options: options)
        try store.recordLosses([.bufferFull: 2])
        let record = DeviceLoss(reason: "outbox_full", count: 5).event(timestamp: Self.wednesday + 3_600_000)
        #expect(try store.writeBatches([[record]]) == [1])
        clock.advance(by: Self.day)  // Saturday: one more on the next day
        try store.recordLosses([.bufferFull: 1])

        #expect(try Self.completeness(store, Self.friday, Self.friday + Self.day) == ["dropped": ["buffer_full": 2]])
        #expect(
            try Self.completeness(store, Self.wednesday, Self.wednesday + Self.day)
                == ["dropped": ["device:outbox_full": 5]])
        #expect(try Self.completeness(store, Self.friday + Self.day, nil) == ["dropped": ["buffer_full": 1]])
        let in2020 = try #require(EventTime.milliseconds(timeOrDate: "2020-01-01"))
        #expect(try Self.completeness(store, in2020, in2020 + Self.day).isEmpty)
        #expect(
            try Self.completeness(store, nil, nil) == ["dropped": ["buffer_full": 3, "device:outbox_full": 5]])
        #expect(try store.completeness() == ["dropped": ["buffer_full": 3, "device:outbox_full": 5]])
        let connection = try SQLiteConnection(path: database.path, create: false)
        #expect(try connection.scalarInt("SELECT count(*) FROM completeness") == 3, "a row per reason and day")
    }

    /// A window counts the days that begin in it: a day begun before `since` is left out, whatever its hour.
    @Test func aWindowCountsTheDaysThatBeginInIt() throws {
        let database = TemporaryDatabase()
        var options = SQLiteEventStore.Options()
        options.clock = ManualEventClock(milliseconds: Self.friday + 20 * 3_600_000)
        let store = try SQLiteEventStore(path: database.path, options: options)
        try store.recordLosses([.sinkError: 1])
        #expect(try Self.completeness(store, Self.friday, Self.friday + 1).count == 1)
        #expect(try Self.completeness(store, Self.friday + 1, nil).isEmpty)
        #expect(try Self.completeness(store, nil, Self.friday).isEmpty)
    }

    /// A device's database: the uploader's running counts (upload_completeness, without a day) are dated by the day
    /// they last grew.
    @Test func theUploadersCountsOnADevicesFileAreDatedByWhenTheyLastGrew() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        let connection = try SQLiteConnection(path: database.path, create: false)
        try connection.execute(
            "CREATE TABLE upload_completeness (kind TEXT NOT NULL, reason TEXT NOT NULL, count INTEGER NOT NULL, "
                + "updated_ms INTEGER NOT NULL, PRIMARY KEY (kind, reason)) WITHOUT ROWID")
        try connection.execute(
            "INSERT INTO upload_completeness VALUES ('dropped', 'outbox_full', 7, \(Self.wednesday + 5))")
        #expect(
            try Self.completeness(store, Self.wednesday, Self.wednesday + Self.day)
                == ["dropped": ["outbox_full": 7]])
        #expect(try Self.completeness(store, Self.friday, nil).isEmpty)
    }

    /// The counts kept before 0019 have no day: they move whole to the UTC day the migration runs on.
    @Test func theCountsOfAnOlderDatabaseMoveToTheDayOfTheMigration() throws {
        let database = TemporaryDatabase()
        do {
            let connection = try SQLiteConnection(path: database.path, create: true)
            try EventIDKey.register(on: connection)
            try SchemaMigrator(migrations: EmbeddedSQL.migrations.filter { ($0.migrationVersion ?? 0) < 19 })
                .migrate(connection)
            try connection.execute(
                "INSERT INTO completeness VALUES ('rejected', 'invalid_event', 4, 1000), ('dropped', 'buffer_full', 1, 2)"
            )
        }
        let before = EventTime.utcDayStart(of: SystemEventClock().nowMilliseconds())
        let store = try SQLiteEventStore(path: database.path)
        let after = EventTime.utcDayStart(of: SystemEventClock().nowMilliseconds())
        #expect(try store.completeness() == ["rejected": ["invalid_event": 4], "dropped": ["buffer_full": 1]])
        let connection = try SQLiteConnection(path: database.path, create: false)
        let days = try connection.scalarInt("SELECT min(day_ms) FROM completeness")
        #expect(try connection.scalarInt("SELECT count(DISTINCT day_ms) FROM completeness") == 1)
        #expect(days == before || days == after, "the UTC day of the migration")
        #expect(try connection.scalarInt("SELECT updated_ms FROM completeness WHERE reason = 'invalid_event'") == 1000)
    }
}

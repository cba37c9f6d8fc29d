import EventStoreInterface
import EventStoreSQLite
import MeasurementEvents
import TestSupport
import Testing

/// The alert episodes on SQLite (Migrations/0018): what every backend must do (``AlertEpisodeStoreChecks``), and that
/// the episodes outlive the store that wrote them, as a restarted server needs.
struct AlertEpisodeTests {
    static let start: Int64 = 1_763_683_200_000

    @Test func anEpisodeOpensOnceAndOwesItsFiringThenItsResolvedNoticeOnce() async throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try await AlertEpisodeStoreChecks.anEpisodesLife(store, start: Self.start) == [])
    }

    @Test func aClaimWhoseLeaseLapsedGoesToAnother() async throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        #expect(try await AlertEpisodeStoreChecks.aLapsedClaimGoesToAnother(store, start: Self.start) == [])
    }

    @Test func anOpenEpisodeAndItsSentNoticeOutliveTheStoreThatWroteThem() throws {
        let database = TemporaryDatabase()
        do {
            let store = try SQLiteEventStore(path: database.path)
            try store.write([MeasurementEvent(name: EventName.navOut, fields: ["success": "1"], timestamp: Self.start)])
            #expect(try store.openAlertEpisode(slice: "all", alert: "{}", at: Self.start))
            let delivery = try #require(try store.claimAlertDelivery(owner: "a", at: Self.start, leaseUntil: .max))
            try store.finishAlertDelivery(delivery, owner: "a", at: Self.start)
        }
        let reopened = try SQLiteEventStore(path: database.path)
        #expect(try reopened.openAlertEpisodes().map(\.slice) == ["all"])
        #expect(!(try reopened.openAlertEpisode(slice: "all", alert: "{}", at: Self.start + 1)))
        #expect(try reopened.nextAlertDeliveryTime() == nil, "the firing notice was sent before the restart")
        #expect(try reopened.count() == 1)
    }
}

import EventStoreInterface
import EventStoreSQLite
import Foundation
import TestSupport
import Testing

/// The links table (Migrations/0008_create_links.sql) through SQLiteEventStore's link API (`alstats links`: alstatsTests'
/// `LinksCLITests`).
@Suite(.serialized)
struct LinkStorageTests {
    @Test func putReplacesBySlugListsGetsAndDeletes() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try store.putLinks([StoredLink(slug: "b", json: "{\"slug\":\"b\"}"), StoredLink(slug: "a", json: "{}")])
        try store.putLinks([StoredLink(slug: "b", json: "{\"slug\":\"b\",\"title\":\"new\"}")])
        #expect(try store.links().map(\.slug) == ["a", "b"])
        #expect(try store.link(slug: "b")?.json == "{\"slug\":\"b\",\"title\":\"new\"}")
        #expect(try store.link(slug: "b")?.updatedMilliseconds ?? 0 > 0)
        #expect(try store.link(slug: "zz") == nil)
        #expect(try store.deleteLink(slug: "a"))
        #expect(try !store.deleteLink(slug: "a"))
        #expect(try store.links().map(\.slug) == ["b"])
    }

    @Test func linksAndEventsShareTheWriterSafely() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        try store.write(sampleEvents(3))
        try store.putLinks([StoredLink(slug: "a", json: "{}")])
        try store.write(sampleEvents(2, idPrefix: "more"))
        #expect(try store.count() == 5 && store.links().count == 1)
    }
}

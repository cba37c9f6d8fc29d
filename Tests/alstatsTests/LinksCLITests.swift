import EventStoreInterface
import EventStoreSQLite
import Foundation
import TestSupport
import Testing

/// `alstats links` on an SQLite file: put, list, show and delete, and the public URL that `put` records.
@Suite(.serialized)
struct LinksCLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theLinksCommandPutsListsShowsAndDeletes() throws {
        let database = TemporaryDatabase()
        let json = #"""
            [{"slug":"invite","title":"Couchin'\t\n\u001b[2J","ios":[{"url":"couchin://i","app_store_id":"1"}],
              "pass_query":["r"]},
             {"slug":"b","web":{"url":"https://b.example/"}}]
            """#
        try json.write(toFile: database.file("links.json"), atomically: true, encoding: .utf8)
        let put = try BuiltAlstats.run(["links", "put", "links.json"], in: database.folder)
        #expect(put.status == 0, "\(put.errors)")
        let list = try BuiltAlstats.run(["links", "list"], in: database.folder)
        #expect(
            list.output.split(separator: "\n").map { $0.split(separator: "\t").first ?? "" } == ["slug", "b", "invite"])
        // A title's tab, line break and escape are written out: each link stays one line of four columns.
        #expect(list.output.contains("invite\tCouchin'\\u0009\\u000A\\u001B[2J\t1\t"), "\(list.output)")
        #expect(
            list.output.split(separator: "\n").allSatisfy {
                $0.split(separator: "\t", omittingEmptySubsequences: false).count == 4
            })
        let listed = try BuiltAlstats.run(["links", "list", "--format", "json"], in: database.folder)
        #expect(listed.output.hasPrefix(#"[{"slug":"b","web":{"url":"https://b.example/","should_fallback":true}}"#))
        let show = try BuiltAlstats.run(["links", "show", "invite"], in: database.folder)
        #expect(show.output.contains(#""ios":[{"url":"couchin://i","app_store_id":"1"}]"#))
        let hostile = Data(#"{"slug":"c","android":[{"package":"p","url":"javascript:alert(1)"}]}"#.utf8)
        let refused = try BuiltAlstats.run(["links", "put", "-"], in: database.folder, input: hostile)
        #expect(refused.status == 65 && refused.errors.contains("android[0].url"))
        #expect(try BuiltAlstats.run(["links", "delete", "b"], in: database.folder).status == 0)
        #expect(try BuiltAlstats.run(["links", "delete", "b"], in: database.folder).status == 66)
        #expect(try BuiltAlstats.run(["links", "show", "c"], in: database.folder).status == 66)
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func linksPutRecordsAPublicURLThatIsAnOriginAndRefusesAnyOther() throws {
        let database = TemporaryDatabase()
        try #"{"slug":"b","web":{"url":"https://b.example/"}}"#.write(
            toFile: database.file("link.json"), atomically: true, encoding: .utf8)
        let refused = try BuiltAlstats.run(
            ["links", "put", "link.json", "--public-url", "https://go.example.com/links"], in: database.folder)
        #expect(refused.status == 64 && refused.errors.contains("--public-url"))
        let put = try BuiltAlstats.run(
            ["links", "put", "link.json", "--public-url", "https://Go.Example.com/"], in: database.folder)
        #expect(put.status == 0, "\(put.errors)")
        let store = try SQLiteEventStore(path: database.path, options: SQLiteEventStore.Options(create: false))
        #expect(try store.publicURLs() == ["https://go.example.com"])
    }
}

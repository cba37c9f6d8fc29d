import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// `alstats demo` end to end, on the built binary.
struct DemoCLITests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theDemoIsDeterministicIdempotentAndKeepsTokensOutOfTheDatabase() throws {
        let first = try ReportDatabase(events: [])
        let second = try ReportDatabase(events: [])
        let run1 = try BuiltAlstats.run([
            "demo", "--events", "3000", "--seed", "5", "--database", first.path, "--format", "json",
        ])
        #expect(run1.status == 0, "\(run1.errors)")
        #expect(run1.errors.contains("3000 events through the bus"))
        // "(0 dropped)" on the in-process path (the core-only build), ", 0 dropped)" through the collector.
        #expect(run1.errors.contains("(0 dropped)") || run1.errors.contains(", 0 dropped)"), "\(run1.errors)")
        let run2 = try BuiltAlstats.run([
            "demo", "--events", "3000", "--seed", "5", "--database", second.path, "--format", "json",
        ])
        #expect(run2.output == run1.output, "the same seed gives the same report")

        let report = try JSONValue.parse(run1.output)
        #expect(report["totals"]?["events"] == .int(3_000))
        for name in EventName.appLinks {
            guard case .int(let count) = report["totals"]?["by_name"]?[name] else {
                Issue.record("no count for \(name)")
                continue
            }
            #expect(count > 100, "\(name) is simulated")
        }
        guard case .object(let types) = report["navigation"]?["by_type"] else {
            Issue.record("navigation.by_type missing")
            return
        }
        #expect(types.allSatisfy { $0.value != .int(0) }, "app, web and fail all happen")
        #expect(report["completeness"]?["rejected"] != .int(0), "malformed links are counted")

        let again = try BuiltAlstats.run([
            "demo", "--events", "3000", "--seed", "5", "--database", first.path, "--format", "json",
        ])
        #expect(again.output == run1.output, "running it again into the same database stores nothing twice")

        // The hosted links funnel: people's page views, crawler fetches, mistyped slugs, arrivals in the app.
        guard case .array(let links) = report["links"], let invite = links.first(where: { $0["slug"] == "invite" })
        else {
            Issue.record("no links section with the invite link")
            return
        }
        for key in ["hits", "visitors", "crawler_fetches", "arrivals"] {
            guard case .int(let count) = invite[key] else {
                Issue.record("invite has no \(key)")
                continue
            }
            #expect(count > 0, "invite.\(key)")
        }
        #expect(links.contains { if case .int(let count) = $0["not_found"] { count > 0 } else { false } })

        // The legacy fb…://authorize links carry access tokens (EAAB…), and the hits' clients have addresses
        // (198.51.100.x, 192.0.2.x): none may reach the file.
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: first.path + suffix) ?? Data()
            #expect(bytes.range(of: Data("EAAB".utf8)) == nil, "a token reached \(first.path + suffix)")
            for address in ["198.51.100.", "192.0.2."] {
                #expect(bytes.range(of: Data(address.utf8)) == nil, "an address reached \(first.path + suffix)")
            }
        }
        let other = try BuiltAlstats.run([
            "demo", "--events", "3000", "--seed", "6", "--database", second.path, "--format", "json",
        ])
        #expect(other.output != run1.output)
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theDemoRejectsANonsenseSize() throws {
        let result = try BuiltAlstats.run(["demo", "--events", "0"])
        #expect(result.status == 64)
    }
}

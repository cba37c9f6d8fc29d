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
        #expect(run1.errors.contains("(0 dropped)"))
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

        // The legacy fb…://authorize links carry access tokens (EAAB…): none may reach the file.
        for suffix in ["", "-wal"] {
            let bytes = FileManager.default.contents(atPath: first.path + suffix) ?? Data()
            #expect(bytes.range(of: Data("EAAB".utf8)) == nil, "a token reached \(first.path + suffix)")
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

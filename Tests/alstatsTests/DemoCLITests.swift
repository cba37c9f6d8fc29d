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

    /// `--port` is the port of the collector the demo starts inside the process; refused with `--in-process`.
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theDemosCollectorListensOnTheGivenPort() throws {
        let database = TemporaryDatabase()
        #if Server
        let (listener, port) = try Wire.listen()
        Wire.stopListening(listener)  // a free port
        let result = try BuiltAlstats.run(["demo", "--events", "200", "--port", "\(port)", "--database", database.path])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("http://127.0.0.1:\(port)/v1/events into"), "\(result.errors)")
        #endif
        let refused = try BuiltAlstats.run(["demo", "--in-process", "--port", "8080", "--database", database.path])
        #expect(refused.status == 64 && refused.errors.hasPrefix("alstats: --port"), "\(refused.errors)")
    }

    /// What an analyst does after the demo: `sqlite3 alstats.sqlite < Queries/NAME.sql` for every SQLite query of
    /// the top-level `Queries/` runs cleanly on the demo's database and gives the rows `alstats query NAME` gives.
    @Test(.enabled(if: BuiltAlstats.shouldRun && (Self.hasSqlite3 || BuiltAlstats.isCI), "needs alstats and sqlite3"))
    func everyQueryFileRunsInSqlite3OnTheDemosDatabaseAndMatchesAlstatsQuery() throws {
        let database = try ReportDatabase(events: [])
        let demo = try BuiltAlstats.run(["demo", "--events", "3000", "--seed", "7", "--database", database.path])
        #expect(demo.status == 0, "\(demo.errors)")
        let folder = Repository.root.appendingPathComponent("Queries")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
            $0.hasSuffix(".sql")
        }.sorted()
        #expect(files.count >= 11)
        for file in files {
            let sql = try Data(contentsOf: folder.appendingPathComponent(file))
            let direct = try ProcessRunner.run(
                "/usr/bin/sqlite3", ["-bail", "-csv", "-header", database.path], input: sql)
            #expect(direct.status == 0 && direct.errors.isEmpty, "\(file): \(direct.errors)")
            let name = String(file.dropLast(4))
            let bundled = try BuiltAlstats.run(["query", name, "--database", database.path, "--format", "csv"])
            #expect(bundled.status == 0, "\(name): \(bundled.errors)")
            let expected = Self.csvRows(bundled.output)
            let actual = Self.csvRows(direct.output)
            #expect(expected.count > 1, "\(name) returns rows on the demo's data")
            #expect(actual.count == expected.count, "\(name): sqlite3 and alstats query give as many rows")
            for (left, right) in zip(actual, expected) where !Self.sameRow(left, right) {
                Issue.record("\(name): sqlite3 gives \(left), alstats query \(right)")
                break
            }
        }
    }

    static let hasSqlite3 = FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3")

    /// The records of RFC 4180 CSV text (quoted fields with doubled quotes; CRLF or LF line ends).
    static func csvRows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var closed = false  // the last character closed a quoted field: a quote now is a doubled one
        for character in text.replacingOccurrences(of: "\r\n", with: "\n") {
            if quoted {
                if character == "\"" { (quoted, closed) = (false, true) } else { field.append(character) }
                continue
            }
            if character == "\"" {
                if closed { field.append("\"") }
                (quoted, closed) = (true, false)
                continue
            }
            closed = false
            switch character {
            case ",":
                row.append(field)
                field = ""
            case "\n":
                rows.append(row + [field])
                row = []
                field = ""
            default:
                field.append(character)
            }
        }
        if !field.isEmpty || !row.isEmpty { rows.append(row + [field]) }
        return rows
    }

    /// Equal fields, numbers equal to 12 significant digits (sqlite3 prints 15, alstats the shortest exact form).
    static func sameRow(_ left: [String], _ right: [String]) -> Bool {
        left.count == right.count
            && zip(left, right).allSatisfy { a, b in
                if a == b { return true }
                guard let x = Double(a), let y = Double(b) else { return false }
                return abs(x - y) <= 1e-12 * max(abs(x), abs(y))
            }
    }
}

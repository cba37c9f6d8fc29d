import AppLinks
import ArgumentParser
import EventReport
import EventStoreInterface
import EventStoreSQLite
import Foundation
import HostedLinks
import MeasurementEvents

extension ALStatsCommand {
    /// `alstats demo`: simulated App Links traffic through the real library, into the database, then the report.
    struct DemoCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Simulate App Links traffic through the real library, store it, and print the report.",
            discussion: """
                Readly, a news app, is opened by links from Facebook, Messenger, Instagram and Mail (a few of them \
                malformed, some legacy fb…://authorize links with an access token, which never reaches the \
                database); readers follow links to partner pages on iPhones where some partner apps are installed \
                and some are not, some pages have no web fallback and some cannot be resolved; some go back to the \
                app they came from. Readly's hosted App Links (go.readly.example/l/invite, autumn-sale, \
                daily-digest) are opened by people and link previewers, and some of the people then arrive in the \
                app: the report's links section shows that funnel. Some of the people without Readly tap the page's \
                store button; about half of those install it within two days, and Readly claims their click and \
                opens on the link (a deferred deep link); other installs come without a link: the report's installs \
                show that path and the first opens, attributed or organic.

                Every event takes the whole path an app's events take: the measurement-event bus, the uploader \
                (HTTPEventSink, with an outbox in a temporary file), HTTP to a collector (alstats serve) started \
                inside this process on a free loopback port with a write key made for the run, and its store, the \
                database; then the collector shuts down and the report is read from the database. With \
                --in-process the bus writes straight into the database through the SQLite sink instead (always so \
                in the core-only build, which has no server).

                The simulated fortnight starts on 2025-11-03 UTC. In its second week (from 2025-11-10) an update \
                of the Clips app breaks its App Links: `alstats report --since 2025-11-10 --until 2025-11-17 \
                --compare previous` compares the second week with the first and shows the alert. The same seed \
                gives the same events, ids included, so running it again into the same database stores nothing \
                twice.

                Examples:
                  alstats demo
                  alstats demo --events 100000 --seed 7 --database demo.sqlite
                  alstats demo --format json | jq .navigation
                """
        )

        @OptionGroup var database: SQLiteDatabaseOptions

        @Option(help: "How many events to simulate.")
        var events = 20_000

        @Option(help: "The seed of the simulation.")
        var seed: UInt64 = 1

        @Option(help: "Report format: table, json, csv, markdown or html.")
        var format: ReportFormat = .table

        @Flag(
            name: .customLong("in-process"),
            help: "Write the events straight into the database (bus → SQLite sink), without the uploader and HTTP.")
        var inProcess = false

        @Option(
            help: ArgumentHelp(
                "The loopback port of the collector the demo starts (0: a free one); not with --in-process.",
                valueName: "port"))
        var port = 0

        func validate() throws {
            guard events > 0, events <= 50_000_000 else {
                throw ValidationError("--events must be between 1 and 50000000, not \(events)")
            }
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
            #if Server
            if inProcess, port != 0 { throw ValidationError("--port is the collector's: leave out --in-process") }
            #else
            if port != 0 { throw ValidationError("--port is the collector's, which this build has not") }
            #endif
        }

        /// Stores the demo's links and records their public URL, so that `alstats links list` shows them and the
        /// report counts the arrivals at their pages.
        static func storeLinks(in path: String) throws(CLIFailure) {
            do throws(StoreError) {
                let store = try SQLiteEventStore(path: path)
                try store.putLinks(DemoLinks.links.map(StoredLink.init))
                if let url = LinkPublicURL(DemoLinks.publicURL) { try store.recordPublicURL(url) }
            } catch {
                throw CLIFailure(error)
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                _ = try database.sqlitePath(for: "demo")  // the demo's collector and sink write a file
                let begin = Date()
                #if !Server
                let line = try await runInProcess()
                #else
                let line = inProcess ? try await runInProcess() : try await runThroughCollector()
                #endif
                try Self.storeLinks(in: database.path)
                printError(line + " in \(String(format: "%.1f", Date().timeIntervalSince(begin))) s")
                let databaseOption = database.database.map { " --database \($0)" } ?? ""
                printError(
                    "demo: the second week against the first, with its alerts: alstats report\(databaseOption) "
                        + "--since 2025-11-10 --until 2025-11-17 --compare previous")
                printError(
                    "demo: in a browser: alstats serve --no-auth\(databaseOption), then "
                        + "http://127.0.0.1:8080/report?since=2025-11-10&until=2025-11-17")
                try await printReport(
                    of: database, query: ReportQuery(timeZone: .utc, top: format.defaultTop), format: format)
            }
        }

        /// Bus → SQLite sink into the database; returns the stderr line (without the time).
        private func runInProcess() async throws(CLIFailure) -> String {
            let clock = ManualEventClock(milliseconds: DemoSimulation.start)
            let bus = MeasurementEventBus(clock: clock, idSeed: seed)
            let sink: SQLiteEventSink
            do throws(StoreError) {
                sink = try SQLiteEventSink(path: database.path)
            } catch {
                throw CLIFailure(error)
            }
            // A buffer as large as the demo, so that the simulation never outruns the writer into drops.
            bus.attach(sink, options: ObserverOptions(label: "sqlite", bufferCapacity: max(65_536, events)))
            let summary = await DemoSimulation(events: events, seed: seed).run(on: bus, clock: clock)
            await bus.close()
            return "demo: \(String(counting: summary.visits, "visit")), \(String(counting: summary.posted, "event")) "
                + "through the bus into \(database.path) "
                + "(\(bus.statistics.totalDropped) dropped)"
        }

        #if Server
        /// Bus → uploader → HTTP → in-process collector → the database; returns the stderr line.
        private func runThroughCollector() async throws(CLIFailure) -> String {
            let outcome = try await DemoCollectorRun(
                events: events, seed: seed, databasePath: database.path, port: port
            ).run()
            let upload = outcome.upload
            let dropped = outcome.busDropped + upload.dropped.values.reduce(0, +)
            let counts =
                "\(String(counting: outcome.summary.visits, "visit")), "
                + String(counting: outcome.summary.posted, "event")
            return "demo: \(counts) through the bus "
                + "and \(outcome.eventsURL.absoluteString) into \(database.path) (\(upload.accepted) uploaded, "
                + "\(upload.duplicates) acknowledged as duplicates, \(dropped) dropped)"
        }
        #endif
    }
}

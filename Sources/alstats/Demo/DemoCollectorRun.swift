// Left out of the core-only build (without the `Server` package trait, Package.swift), which has no server: there the demo
// always takes the in-process path.
#if Server
import EventServer
import EventStoreSQLite
import EventStoreInterface
import EventUpload
import Foundation
import Logging
import MeasurementEvents

/// The demo's whole path: bus → `HTTPEventSink` (a temporary outbox) → loopback HTTP → an in-process
/// collector whose store is the demo's database.
struct DemoCollectorRun {
    /// What went through the collector, for the demo's stderr line.
    struct Outcome {
        var summary: DemoSimulation.Summary
        var eventsURL: URL
        var upload: UploadStatus
        var busDropped: Int
    }

    let events: Int
    let seed: UInt64
    let databasePath: String
    /// The collector's loopback port; 0 picks a free one.
    var port = 0

    /// Starts the collector, runs the simulation into the uploader, waits until the outbox is empty (the
    /// device's losses included: the uploader sends them as loss records, which the collector counts in its
    /// completeness) and stops the collector gracefully.
    func run() async throws(CLIFailure) -> Outcome {
        let writeKey = "demo-" + String(UInt64.random(in: 1...UInt64.max), radix: 16)
        let collector = try await startCollector(writeKey: writeKey)
        let outboxPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("alstats-demo-outbox-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm", "-journal"] {
                try? FileManager.default.removeItem(atPath: outboxPath + suffix)
            }
        }
        let outcome: Outcome
        do {
            outcome = try await simulate(into: collector, writeKey: writeKey, outboxPath: outboxPath)
        } catch {
            try? await collector.stop()
            throw error
        }
        do {
            try await collector.stop()
        } catch {
            throw CLIFailure(ExitStatus.ioError, "the demo's collector stopped with an error: \(error)")
        }
        return outcome
    }

    private func startCollector(writeKey: String) async throws(CLIFailure) -> InProcessCollector {
        var configuration = EventServerConfiguration(
            databasePath: databasePath, keys: AccessKeys(write: [writeKey]))
        configuration.host = "127.0.0.1"
        configuration.port = port
        // The demo prints its report on stdout and one line on stderr: no request log.
        let logger = Logger(label: "alstats.demo") { _ in SwiftLogNoOpLogHandler() }
        do throws(EventServerError) {
            return try await InProcessCollector.start(configuration: configuration, logger: logger)
        } catch {
            throw CLIFailure(ExitStatus.ioError, error.message)
        }
    }

    private func simulate(into collector: InProcessCollector, writeKey: String, outboxPath: String)
        async throws(CLIFailure) -> Outcome
    {
        let sink: HTTPEventSink
        do throws(UploadError) {
            sink = try HTTPEventSink(
                .init(
                    collector: collector.eventsURL, writeKey: writeKey, outboxPath: outboxPath,
                    policy: UploadPolicy(giveUpAfter: .seconds(30))),
                transport: UploadTransports.platformDefault())
        } catch {
            throw CLIFailure(ExitStatus.ioError, error.message)
        }
        let clock = ManualEventClock(milliseconds: DemoSimulation.start)
        let bus = MeasurementEventBus(clock: clock, idSeed: seed)
        bus.attach(sink, options: ObserverOptions(label: "upload", bufferCapacity: max(65_536, events)))
        let uploads = Task { await sink.run() }  // uploads while the simulation runs
        let summary = await DemoSimulation(events: events, seed: seed).run(on: bus, clock: clock)
        await bus.flush()
        do throws(UploadError) {
            try await sink.upload()
        } catch {
            uploads.cancel()
            await bus.close()
            throw CLIFailure(ExitStatus.unavailable, "the demo's upload stopped: \(error.message)")
        }
        // flush() returned once the bus's losses were in the outbox too, so upload() sent them.
        await bus.close()  // closes the outbox; run() ends
        await uploads.value
        return Outcome(
            summary: summary, eventsURL: collector.eventsURL, upload: sink.status,
            busDropped: bus.statistics.totalDropped)
    }
}
#endif

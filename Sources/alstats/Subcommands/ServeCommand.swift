// Left out of the core-only build (without the `Server` package trait, Package.swift), which has no server packages.
#if Server
import ArgumentParser
import EventServer
import EventStoreSQLite
import EventStoreInterface
import StoreOpening
import Foundation
import HostedLinks
import Logging

extension ALStatsCommand {
    /// `alstats serve`: the collector and the report over HTTP (docs/collector.md).
    struct ServeCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Collect events over HTTP and serve the report.",
            discussion: """
                Apps and servers POST NDJSON events to /v1/events (or Segment calls to /v1/batch, /v1/track, ...); \
                each answer comes once its events are committed. The report is at /report (HTML) and /api/report \
                (JSON). Keys come from --config FILE ({"write_keys": [...], "read_keys": [...], "admin_keys": [...]}) \
                and ALSTATS_WRITE_KEYS, ALSTATS_READ_KEYS, ALSTATS_ADMIN_KEYS (comma-separated). Hosted App Link pages are at \
                /l/SLUG, their store buttons at /l/SLUG/store/ios and /android; installed apps claim their click at \
                /v1/deferred within "deferred_window" of the config (default "7d"). The config's "limits" sets the \
                timeouts, the connection cap and each write key's rate (docs/collector.md). With "alerts": \
                {"webhook": URL, "every": "15m", "window": "24h"} in the file, the alerts are evaluated every 15 \
                minutes and posted to the webhook when a cause appears and when it clears. With --retention 90d (or \
                "retention": "90d" in the file), raw events older than 90 days are pruned at start and once a day, \
                as alstats prune does. SIGTERM or SIGINT finishes the requests in flight, commits them and exits 0.

                Examples:
                  ALSTATS_WRITE_KEYS=w1 ALSTATS_READ_KEYS=r1 alstats serve --port 8080
                  alstats serve --config serve.json --host 0.0.0.0 --durability full
                  alstats serve --retention 90d
                  alstats serve --no-auth            (loopback only)
                """
        )

        @OptionGroup var database: DatabaseOptions

        @Option(help: "The address to listen on.")
        var host: String = "127.0.0.1"

        @Option(help: "The port to listen on (0: any free port, printed at start).")
        var port: Int = 8080

        @Option(
            help: ArgumentHelp("A JSON file with write_keys, read_keys, admin_keys and limits.", valueName: "file"))
        var config: String?

        @Option(
            name: .customLong("public-url"),
            help: ArgumentHelp("The URL clients reach the server at.", valueName: "url"))
        var publicURL: String?

        @Flag(name: .customLong("no-auth"), help: "Accept every request without a key (loopback hosts only).")
        var noAuth = false

        @Option(help: "normal (WAL, survives a killed process) or full (also a power cut).")
        var durability: StoreDurability = .normal

        @Option(name: .customLong("log-format"), help: "text or json (one JSON object per line on stderr).")
        var logFormat: LogFormat = .text

        @Flag(name: .customLong("trust-proxy"), help: "Believe X-Forwarded-For (behind a reverse proxy).")
        var trustProxy = false

        @Option(
            name: .customLong("queue-events"),
            help: ArgumentHelp(
                "The most events waiting for a commit; more get 503 with Retry-After.", valueName: "n"))
        var queueEvents: Int = 100_000

        @Option(
            name: .customLong("upkeep-seconds"),
            help: ArgumentHelp(
                "How often the store's upkeep runs (PostgreSQL: summaries of the time index's filled ranges).",
                valueName: "seconds"))
        var upkeepSeconds: Double = 30

        @Option(
            help: ArgumentHelp(
                "Prune raw events older than this (12h, 90d, 52w) once a day; overrides the config's retention.",
                valueName: "window"))
        var retention: String?

        /// The log formats of `--log-format`.
        enum LogFormat: String, ExpressibleByArgument {
            case text, json
        }

        func validate() throws {
            guard (0...65_535).contains(port) else {
                throw ValidationError("--port must be 0 to 65535, not \(port)")
            }
            guard queueEvents > 0 else { throw ValidationError("--queue-events must be at least 1") }
            if let retention, RetentionPeriod(retention) == nil {
                throw ValidationError(
                    "--retention must be a whole number of hours, days or weeks, at least 1h (12h, 90d, 52w), not "
                        + retention)
            }
            guard upkeepSeconds >= 0.01, upkeepSeconds <= 86_400 else {
                throw ValidationError("--upkeep-seconds must be 0.01 to 86400, not \(upkeepSeconds)")
            }
            if noAuth, !ServeCommand.isLoopback(host) {
                throw ValidationError(
                    "--no-auth is refused on \(host): it would let anyone write; use --host 127.0.0.1 or set keys")
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                let keys: AccessKeys
                do throws(EventServerError) {
                    keys = try AccessKeys.load(
                        configFile: config, environment: ProcessInfo.processInfo.environment, open: noAuth)
                } catch {
                    throw CLIFailure(ExitStatus.usage, error.message)
                }
                guard noAuth || keys.count(of: .write) > 0 else {
                    throw CLIFailure(
                        ExitStatus.usage,
                        "no write key: set ALSTATS_WRITE_KEYS=KEY (comma-separated), or \"write_keys\" in --config FILE, "
                            + "or pass --no-auth on a loopback host")
                }
                try await serve(keys: keys)
            }
        }

        private func serve(keys: AccessKeys) async throws {
            let format = logFormat
            // One line per request, written off the request path (batched) while the server runs.
            let logOutput = BufferedLogOutput()
            LoggingSystem.bootstrap { label in
                switch format {
                case .text: return ServerLogHandler(label: label, format: .text, output: logOutput)
                case .json: return ServerLogHandler(label: label, format: .json, output: logOutput)
                }
            }
            let logger = Logger(label: "alstats.serve")
            let store = try database.openForServing(durability)
            var configuration = EventServerConfiguration(databasePath: store.backend.location, keys: keys)
            configuration.host = host
            configuration.port = port
            configuration.publicURL = publicURL
            configuration.durability = durability
            configuration.trustProxy = trustProxy
            configuration.maximumQueuedEvents = queueEvents
            configuration.upkeepInterval = .seconds(upkeepSeconds)
            configuration.verifiedLinks = try verifiedLinks()
            if let window = try deferredWindow() { configuration.deferredWindow = window }
            configuration.limits = try limits()
            configuration.alerts = try alertDelivery()
            configuration.retention = try retentionPeriod()
            ServeCommand.raiseDescriptorLimit(toServe: configuration.limits.maxConnections)
            let app: EventServerApplication
            let location = store.backend.location
            do throws(EventServerError) {
                app = try buildApplication(configuration: configuration, store: store, logger: logger) {
                    address in
                    printError("alstats serve: listening on http://\(address) (database \(location))")
                }
            } catch {
                throw CLIFailure(
                    error.kind == .configuration ? ExitStatus.usage : ExitStatus.ioError, error.message)
            }
            do {
                try await runUntilSignalled(app, logger: logger, logOutput: logOutput)
            } catch let error as EventServerError {
                // The store could not be readied before the server took requests (connecting, migrating).
                throw CLIFailure(ExitStatus.ioError, error.message)
            } catch {
                throw CLIFailure(ExitStatus.ioError, "the server stopped: \(error)")
            }
            try await store.finish()
        }

        /// The `ios_app_ids` and `android_apps` of `--config FILE`, for `/.well-known/` (none without a file).
        private func verifiedLinks() throws(CLIFailure) -> VerifiedLinkConfig {
            guard let config else { return VerifiedLinkConfig() }
            do {
                return try VerifiedLinkConfig(json: .object(try ServerConfigFile.read(config).object))
            } catch let error as EventServerError {
                throw CLIFailure(ExitStatus.usage, error.message)
            } catch {
                throw CLIFailure(ExitStatus.usage, "\(config): \(error)")
            }
        }

        /// The `deferred_window` of `--config FILE`: how long a click token can be claimed (docs/install.md).
        private func deferredWindow() throws(CLIFailure) -> Duration? {
            guard let config else { return nil }
            do throws(EventServerError) {
                return try ServerConfigFile.read(config).duration("deferred_window")
            } catch {
                throw CLIFailure(ExitStatus.usage, error.message)
            }
        }

        /// The `alerts` of `--config FILE`: the webhook the alerts are posted to (none without a file or the key).
        private func alertDelivery() throws(CLIFailure) -> AlertDeliveryConfiguration? {
            guard let config else { return nil }
            do throws(EventServerError) {
                return try AlertDeliveryConfiguration.read(from: try ServerConfigFile.read(config))
            } catch {
                throw CLIFailure(ExitStatus.usage, error.message)
            }
        }

        /// `--retention`, else the `retention` of `--config FILE`; `nil` (kept for ever) without either.
        private func retentionPeriod() throws(CLIFailure) -> RetentionPeriod? {
            if let retention { return RetentionPeriod(retention) }
            guard let config else { return nil }
            do throws(EventServerError) {
                return try ServerConfigFile.read(config).retention()
            } catch {
                throw CLIFailure(ExitStatus.usage, error.message)
            }
        }

        /// The `limits` of `--config FILE` (docs/collector.md, "Limits"); the defaults without a file.
        private func limits() throws(CLIFailure) -> ServerLimits {
            guard let config else { return ServerLimits() }
            do throws(EventServerError) {
                return try ServerLimits(json: ServerConfigFile.read(config).object["limits"], path: config)
            } catch {
                throw CLIFailure(ExitStatus.usage, error.message)
            }
        }

        /// Raises the soft limit of open descriptors to the hard one, as Go's servers do, so that
        /// `max_connections` (4096 by default) is not cut short by a soft limit of 1024; says so on stderr when
        /// even the hard limit is too low for it (a connection, the database files and a margin).
        static func raiseDescriptorLimit(toServe connections: Int) {
            #if canImport(Glibc)
            var limit = rlimit()
            guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
            if limit.rlim_cur < limit.rlim_max {
                var raised = limit
                raised.rlim_cur = limit.rlim_max
                if setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
            }
            let needed = rlim_t(connections + 64)
            if limit.rlim_cur < needed {
                printError(
                    "alstats serve: warning: max_connections \(connections) needs about \(needed) open files, and "
                        + "this process may open \(limit.rlim_cur): raise it (ulimit -n, or LimitNOFILE= in a "
                        + "systemd unit), or lower max_connections in the config's \"limits\"")
            }
            #endif
        }

        /// Whether `host` names the loopback interface.
        static func isLoopback(_ host: String) -> Bool {
            host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
        }
    }
}

extension StoreDurability: ExpressibleByArgument {}
#endif

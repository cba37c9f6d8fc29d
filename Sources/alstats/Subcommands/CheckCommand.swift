// Left out of the core-only build (without the `Server` package trait, Package.swift), which has no AppLinksHTTPClient.
#if Server
import AppLinks
import AppLinksCheck
import AppLinksHTTPClient
import ArgumentParser
import EventStoreInterface
import Foundation
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats check`: whether a link will open the app on iOS, Android and for App Links clients, and why not
    /// (docs/check.md).
    struct CheckCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Check that a link will open the app on iOS, Android and for App Links clients.",
            discussion: """
                Fetches what the platforms fetch, as they fetch it: /.well-known/apple-app-site-association (iOS: \
                no redirect, JSON, at most 128 KB, app IDs with their Team ID, the path matched by the apps' \
                components or paths), /.well-known/assetlinks.json (Android: no redirect, application/json, \
                statements granting delegate_permission/common.handle_all_urls with well-formed SHA-256 \
                fingerprints) and the page's al:* tags as the App Link resolver reads them. Says per platform \
                whether the app will open and why not. --links checks every hosted link of the store at its \
                public URL. Requests carry User-Agent: alstats-check/\(ALStatsVersion.current).

                Exit: 0 when every platform will open the app, 3 when one will not, 69 when a page cannot be \
                reached.

                Examples:
                  alstats check https://go.example.com/l/invite
                  alstats check https://example.com/article/1 --format json
                  alstats check --links --public-url https://go.example.com
                """)

        @Argument(help: "The link URLs to check (http or https).")
        var urls: [String] = []

        @Flag(help: "Check every hosted link of the store, at --public-url.")
        var links = false

        @Option(
            name: .customLong("public-url"),
            help: ArgumentHelp(
                "Where the hosted links are served (default: the store's recorded public URL).", valueName: "url"))
        var publicURL: String?

        @OptionGroup var database: DatabaseOptions

        @Option(help: "Output format: text (for people) or json (one object per URL and line).")
        var format: DebuggerFormat = .text

        @Option(help: ArgumentHelp("Each fetch's time limit in seconds.", valueName: "seconds"))
        var timeout: Double = 10

        func validate() throws {
            guard links != !urls.isEmpty else {
                throw ValidationError("Give the URLs to check, or --links for the store's hosted links.")
            }
            for url in urls {
                guard let parsed = URL(string: url), RawURL(url).isAbsolute,
                    ["http", "https"].contains(parsed.scheme?.lowercased() ?? ""), parsed.host != nil
                else {
                    throw ValidationError("'\(url)' is not an http or https URL, such as https://example.com/l/a.")
                }
            }
            if let publicURL, LinkPublicURL(publicURL) == nil {
                throw ValidationError("--public-url must be scheme://host[:port], not \(publicURL)")
            }
            guard timeout > 0, timeout <= 600 else { throw ValidationError("--timeout must be 0 to 600 seconds.") }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                let targets = links ? try await hostedLinkURLs() : urls.compactMap(URL.init(string:))
                let checker = LinkChecker(
                    fetcher: AsyncHTTPClientLinkCheckFetcher(timeout: .milliseconds(Int64(timeout * 1_000))),
                    userAgent: "alstats-check/\(ALStatsVersion.current)")
                var status = ExitStatus.ok
                for (index, url) in targets.enumerated() {
                    let report = await checker.check(url)
                    switch format {
                    case .json: print(report.json.jsonText())
                    case .text: print(((index > 0 ? [""] : []) + report.lines).joined(separator: "\n"))
                    }
                    if report.unreachable {
                        status = ExitStatus.unavailable
                    } else if !report.opens, status == ExitStatus.ok {
                        status = ExitStatus.found
                    }
                }
                if status != ExitStatus.ok { throw ExitCode(status) }
            }
        }

        /// `PUBLIC_URL/l/SLUG` of every hosted link of the store.
        private func hostedLinkURLs() async throws -> [URL] {
            let store = try await database.openBackend(.read)
            let stored: [StoredLink]
            let recorded: [String]
            do throws(StoreError) {
                stored = try await store.linkStore.links()
                recorded = try await store.linkStore.publicURLs()
            } catch {
                throw CLIFailure(error)
            }
            try await store.finish()
            guard let base = publicURL ?? (recorded.count == 1 ? recorded.first : nil),
                let root = LinkPublicURL(base)
            else {
                throw CLIFailure(
                    ExitStatus.usage,
                    recorded.isEmpty
                        ? "give --public-url: where the hosted links are served (the store has none recorded)"
                        : "give --public-url: the store has several (\(recorded.joined(separator: ", ")))"
                )
            }
            guard !stored.isEmpty else {
                throw CLIFailure(
                    ExitStatus.noInput, "\(database.path) has no hosted links: add one with alstats links put")
            }
            return stored.compactMap { URL(string: "\(root.text)/l/\($0.slug)") }
        }
    }
}
#endif

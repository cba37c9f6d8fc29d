import ArgumentParser
import EventStoreInterface
import Foundation
import HostedLinks
import MeasurementEvents
import StoreOpening

extension ALStatsCommand {
    /// `alstats links put|list|show|delete`: the hosted App Links kept in the database (docs/hosted-links.md).
    struct LinksCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "links",
            abstract: "Manage the hosted App Links served at /l/SLUG.",
            discussion: """
                A link is JSON: {"slug": "invite", "title": "...", "ios": [{"url": "...", "app_store_id": "..."}],
                "android": [{"package": "...", "url": "..."}], "web": {"url": "https://..."}, "pass_query": ["..."]}.

                Example:
                  alstats links put invite.json
                  alstats links list --format json
                """,
            subcommands: [Put.self, List.self, Show.self, Delete.self]
        )

        /// `links put FILE|-`: one link or an array, replacing links with the same slug.
        struct Put: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Store links from a JSON file (one link or an array); same slug replaces.")

            @OptionGroup var database: DatabaseOptions

            @Argument(help: ArgumentHelp("The JSON file, or - for standard input.", valueName: "file"))
            var file: String

            @Option(
                help: ArgumentHelp(
                    "The public URL the pages are served under (scheme://host[:port]); the report counts arrivals "
                        + "at <public-url>/l/<slug> only for recorded public URLs.", valueName: "url"))
            var publicURL: String?

            func validate() throws {
                if let publicURL, LinkPublicURL(publicURL) == nil {
                    throw ValidationError(
                        "--public-url must be scheme://host[:port] (links are at /l/ of its root), not \(publicURL)")
                }
            }

            func run() async throws {
                try await reportingFailuresAsync {
                    let links = try LinksCommand.parse(try LinksCommand.read(file))
                    let store = try await database.openBackend(.create)
                    do throws(StoreError) {
                        try await store.linkStore.putLinks(links.map(StoredLink.init))
                        if let url = publicURL.flatMap(LinkPublicURL.init) {
                            try await store.linkStore.recordPublicURL(url)
                        }
                    } catch {
                        throw CLIFailure(error)
                    }
                    try await store.finish()
                    print("stored \(String(counting: links.count, "link"))")
                }
            }
        }

        /// `links list [--format table|json]`.
        struct List: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the stored links.")

            enum Format: String, ExpressibleByArgument, CaseIterable { case table, json }

            @OptionGroup var database: DatabaseOptions

            @Option(help: "table or json.") var format: Format = .table

            func run() async throws {
                try await reportingFailuresAsync {
                    let links = try await LinksCommand.storedLinks(database)
                    switch format {
                    case .json: print(JSONValue.array(links.map(\.jsonValue)).jsonText())
                    case .table:
                        print("slug\ttitle\ttargets\tweb")
                        for link in links {
                            let targets = link.targets.values.reduce(0) { $0 + $1.count }
                            print(
                                [link.slug, link.title ?? "", String(targets), link.web?.url ?? ""]
                                    .map(TerminalText.printable).joined(separator: "\t"))
                        }
                    }
                }
            }
        }

        /// `links show SLUG`: the link's JSON.
        struct Show: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Print one link's JSON.")

            @OptionGroup var link: SlugOptions

            func run() async throws {
                try await reportingFailuresAsync {
                    let store = try await link.database.openBackend(.read)
                    let stored: StoredLink?
                    do throws(StoreError) {
                        stored = try await store.linkStore.link(slug: link.slug)
                    } catch {
                        throw CLIFailure(error)
                    }
                    try await store.finish()
                    guard let stored else { throw link.notFound }
                    print(try LinksCommand.decode(stored).jsonValue.jsonText())
                }
            }
        }

        /// `links delete SLUG`.
        struct Delete: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Delete one link.")

            @OptionGroup var link: SlugOptions

            func run() async throws {
                try await reportingFailuresAsync {
                    let store = try await link.database.openBackend(.existing)
                    let deleted: Bool
                    do throws(StoreError) {
                        deleted = try await store.linkStore.deleteLink(slug: link.slug)
                    } catch {
                        throw CLIFailure(error)
                    }
                    try await store.finish()
                    guard deleted else { throw link.notFound }
                    print("deleted \(link.slug)")
                }
            }
        }

        /// The database and the slug that `links show` and `links delete` act on.
        struct SlugOptions: ParsableArguments {
            @OptionGroup var database: DatabaseOptions

            @Argument(help: ArgumentHelp("The link's slug.", valueName: "slug")) var slug: String

            /// The failure for a slug that no stored link has (exit 66).
            var notFound: CLIFailure { CLIFailure(ExitStatus.noInput, "no link is named '\(slug)'") }
        }

        /// The text of `file`, or of standard input for `-`.
        static func read(_ file: String) throws -> String {
            if file == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
            guard let data = FileManager.default.contents(atPath: file) else {
                throw CLIFailure(ExitStatus.noInput, "cannot read '\(file)': no such file or not readable")
            }
            return String(decoding: data, as: UTF8.self)
        }

        /// The links of `text`; invalid JSON or an invalid link is exit 65, naming the field.
        static func parse(_ text: String) throws -> [HostedLink] {
            do {
                return try HostedLink.links(fromJSON: text)
            } catch let error as LinkValidationError {
                throw CLIFailure(ExitStatus.dataError, "invalid link: \(error)")
            } catch {
                throw CLIFailure(ExitStatus.dataError, "\(error)")
            }
        }

        /// Every stored link, read back through validation.
        static func storedLinks(_ database: DatabaseOptions) async throws -> [HostedLink] {
            let store = try await database.openBackend(.read)
            let links: [StoredLink]
            do throws(StoreError) {
                links = try await store.linkStore.links()
            } catch {
                throw CLIFailure(error)
            }
            try await store.finish()
            return try links.map(decode)
        }

        /// A stored link's JSON as a link; a row that no longer validates is exit 65.
        static func decode(_ stored: StoredLink) throws -> HostedLink {
            do {
                return try HostedLink(json: JSONValue.parse(stored.json))
            } catch {
                throw CLIFailure(ExitStatus.dataError, "the stored link '\(stored.slug)' is invalid: \(error)")
            }
        }
    }
}

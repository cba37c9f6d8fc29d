import AppLinks
import ArgumentParser
import Foundation
import MeasurementEvents

extension ALStatsCommand {
    /// `alstats resolve`: the AppLink a page declares for a platform (targets in order, web URL).
    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a page's App Link meta tags: targets in the order navigation tries them, and the web URL.",
            discussion: """
                Examples:
                  alstats resolve --html Examples/article.html --url https://example.com/article
                  alstats resolve https://example.com/article --platform android --format json
                """)

        @OptionGroup var page: PageSourceOptions
        @OptionGroup var output: DebuggerOutputOptions

        func run() async throws {
            try await reportingFailuresAsync {
                let link = try await page.resolvedLink(command: "resolve")
                let secrets = output.secrets
                output.emit(
                    json: Resolve.json(link, platform: page.platform, secrets: secrets),
                    text: Resolve.text(link, platform: page.platform, secrets: secrets).lines)
            }
        }

        static func json(_ link: AppLink, platform: AppLinkPlatform, secrets: SecretFilter) -> JSONValue {
            let targets = link.targets.map { target -> JSONValue in
                .object([
                    "url": .optional(target.url.map { secrets.url($0.absoluteString) }),
                    "appStoreId": .optional(target.appStoreId),
                    "package": .optional(target.package),
                    "className": .optional(target.className),
                    "appName": .optional(target.appName),
                ])
            }
            return .object([
                "sourceURL": .string(secrets.url(link.sourceURL.absoluteString)),
                "platform": .string(platform.rawValue),
                "targets": .array(targets),
                "webURL": .optional(link.webURL.map { secrets.url($0.absoluteString) }),
            ])
        }

        static func text(_ link: AppLink, platform: AppLinkPlatform, secrets: SecretFilter) -> TextBlock {
            var block = TextBlock()
            block.add("sourceURL", secrets.url(link.sourceURL.absoluteString))
            block.add("platform", platform.rawValue)
            var lines: [String] = []
            for (index, target) in link.targets.enumerated() {
                lines.append(
                    "\(index + 1). " + (target.url.map { secrets.url($0.absoluteString) } ?? "(no url: skipped)"))
                let details = [
                    ("appName", target.appName), ("appStoreId", target.appStoreId), ("package", target.package),
                    ("className", target.className),
                ]
                for case (let label, let value?) in details {
                    lines.append("   " + label.padding(toLength: 11, withPad: " ", startingAt: 0) + value)
                }
            }
            block.add("targets", lines: lines)
            block.add(
                "webURL", link.webURL.map { secrets.url($0.absoluteString) } ?? "none (al:web:should_fallback is false)"
            )
            return block
        }
    }
}

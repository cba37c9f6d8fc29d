import AppLinks
import ArgumentParser
import Foundation
import MeasurementEvents

extension ALStatsCommand {
    /// `alstats navigate`: a dry run of an outbound navigation on a device with some apps installed.
    struct Navigate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Dry-run a navigation: the target chosen, the URL that would be opened, the event that would be posted.",
            discussion: """
                Nothing is opened and nothing is posted. A page that cannot be fetched is shown as the failed
                navigation it would be (al_nav_out, type fail), then the command exits with status 74.

                Examples:
                  alstats navigate --html Examples/article.html --url https://example.com/article --installed example-ios
                  alstats navigate https://example.com/article --platform android --installed example-android \\
                      --app-link-data '{"ref":"feed"}' --extras '{"fb_app_id":123}' \\
                      --referer-app-name News --referer-url 'news://back'
                """)

        @OptionGroup var page: PageSourceOptions

        @Option(help: ArgumentHelp("A URL scheme of an installed app (repeatable).", valueName: "scheme"))
        var installed: [String] = []

        @Option(
            help: ArgumentHelp(
                "A JSON object written first into al_applink_data (for example {\"ref\":\"feed\"}).", valueName: "json")
        )
        var appLinkData: String?

        @Option(help: ArgumentHelp("The al_applink_data extras, a JSON object.", valueName: "json"))
        var extras: String?

        @Option(help: ArgumentHelp("This app's name, for referer_app_link.", valueName: "name"))
        var refererAppName: String?

        @Option(help: ArgumentHelp("The URL that opens this app again, for referer_app_link.", valueName: "url"))
        var refererURL: String?

        @OptionGroup var output: DebuggerOutputOptions

        func validate() throws {
            if (refererAppName == nil) != (refererURL == nil) {
                throw ValidationError("--referer-app-name and --referer-url go together: give both or neither.")
            }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                let data = try parseJSON(appLinkData, option: "--app-link-data")
                guard data == nil || data?.objectValue != nil else {
                    throw CLIFailure(
                        ExitStatus.dataError, "--app-link-data must be a JSON object, such as {\"ref\":\"feed\"}")
                }
                let extrasValue = try parseJSON(extras, option: "--extras") ?? .object(JSONObject())
                let referer = refererAppName.flatMap { name in refererURL.map { AppLinkReferer(url: $0, appName: name) }
                }
                let secrets = output.secrets

                let result: AppLinkNavigationResult
                var failure: CLIFailure?
                switch try await page.resolve(command: "navigate") {
                case .success(let link):
                    let navigation = AppLinkNavigation(
                        appLink: link, extras: extrasValue, appLinkData: data?.objectValue ?? JSONObject(),
                        referer: referer
                    )
                    result = navigation.plan(canOpen: AppLinkNavigation.installed(schemes: installed))
                case .failure(let error):
                    result = AppLinkNavigation.resolutionFailure(
                        pageURL: page.sourceURL, error: error, appLinkData: data?.objectValue ?? JSONObject())
                    failure = page.failure(error)
                }
                output.emit(json: json(result, secrets: secrets), text: text(result, secrets: secrets))
                if let failure { throw failure }
            }
        }

        func parseJSON(_ text: String?, option: String) throws -> JSONValue? {
            guard let text else { return nil }
            do {
                return try JSONValue.parse(text)
            } catch {
                throw CLIFailure(ExitStatus.dataError, "\(option) is not valid JSON (\(error)); quote it for the shell")
            }
        }

        func json(_ result: AppLinkNavigationResult, secrets: SecretFilter) -> JSONValue {
            var chosen: JSONObject = [
                "type": .string(result.type.rawValue),
                "url": .optional(result.url.map { secrets.url($0.absoluteString) }),
            ]
            if let target = result.target {
                chosen["appName"] = .optional(target.appName)
                chosen["targetURL"] = .optional(target.url.map { secrets.url($0.absoluteString) })
            }
            let dataInURL = result.url.flatMap { AppLinkURL(parsing: $0.absoluteString).appLinkData }
            return .object([
                "sourceURL": .optional(result.event.fields[FieldName.sourceURL].map(secrets.url)),
                "chosen": .object(chosen),
                "error": .optional(result.error),
                "appLinkData": dataInURL.map { secrets.json(.object($0)) } ?? .null,
                "event": .object([
                    "name": .string(result.event.name), "fields": .strings(secrets.fields(result.event.fields)),
                ]),
            ])
        }

        func text(_ result: AppLinkNavigationResult, secrets: SecretFilter) -> [String] {
            var block = TextBlock()
            block.add("sourceURL", result.event.fields[FieldName.sourceURL].map(secrets.url) ?? "none")
            var chosen = result.type.rawValue
            if let appName = result.target?.appName { chosen += " (\(appName))" }
            if let error = result.error { chosen += ": \(error)" }
            block.add("chosen", chosen)
            block.add("url", result.url.map { secrets.url($0.absoluteString) } ?? "none (nothing would be opened)")
            if let data = result.url.flatMap({ AppLinkURL(parsing: $0.absoluteString).appLinkData }) {
                block.add("appLinkData", secrets.json(.object(data)).jsonText())
            }
            block.add(
                "event",
                lines: [result.event.name] + TextBlock.pairs(secrets.fields(result.event.fields)).map { "  " + $0 }
            )
            return block.lines
        }
    }
}

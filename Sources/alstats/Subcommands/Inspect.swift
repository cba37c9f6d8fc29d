import AppLinks
import ArgumentParser
import MeasurementEvents

extension ALStatsCommand {
    /// `alstats inspect URL`: what a host app sees in the URL that opened it, and the event it would post.
    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Parse an inbound URL as a host app would: target, App Link data, referer, ref, event.",
            discussion: """
                Nothing is posted or stored. Secret values are printed as REDACTED unless --show-secrets.

                Examples:
                  alstats inspect 'fb123://authorize#expires_in=0&access_token=SECRET&target_url=https%3A%2F%2Fexample.com%2Fa%3Fref%3Dfeed'
                  alstats inspect 'example://item?al_applink_data=%7B%22target_url%22%3A%22https%3A%2F%2Fexample.com%2Fa%22%7D' --format json
                """)

        @Argument(help: "The URL that opened the app (quote it for the shell).")
        var url: String

        @Option(help: ArgumentHelp("The bundle id of the app that opened this one.", valueName: "id"))
        var sourceApplication: String?

        @OptionGroup var output: DebuggerOutputOptions

        func run() throws {
            try reportingFailures {
                guard RawURL(url).scheme != nil else {
                    throw CLIFailure(
                        ExitStatus.dataError, "'\(url)' is not a URL: it has no scheme (such as example://)")
                }
                let link = AppLinkURL(parsing: url)
                let secrets = output.secrets
                let event = link.event(sourceApplication: sourceApplication).map {
                    AppLinkEvent(name: $0.name, fields: secrets.fields($0.fields))
                }
                output.emit(
                    json: json(link, event: event, secrets: secrets), text: text(link, event: event, secrets: secrets))
            }
        }

        func json(_ link: AppLinkURL, event: AppLinkEvent?, secrets: SecretFilter) -> JSONValue {
            var object: JSONObject = [
                "inputURL": .string(secrets.url(link.inputURL)),
                "targetURL": .string(secrets.url(link.targetURL)),
                "inputQueryParameters": .strings(secrets.fields(link.inputQueryParameters)),
                "targetQueryParameters": .strings(secrets.fields(link.targetQueryParameters)),
                "appLinkData": link.appLinkData.map { secrets.json(.object($0)) } ?? .null,
                "appLinkExtras": link.appLinkExtras.map { secrets.json(.object($0)) } ?? .null,
                "ref": .optional(link.ref),
                "isAppLink": .bool(link.isAppLink),
                "isLegacyLink": .bool(link.isLegacyLink),
                "rejection": .optional(link.rejection?.code),
                "event": event.map { .object(["name": .string($0.name), "fields": .strings($0.fields)]) } ?? .null,
            ]
            object["referer"] =
                link.appLinkReferer.map {
                    .object(["url": .string(secrets.url($0.url)), "appName": .string($0.appName)])
                }
                ?? .null
            return .object(object)
        }

        func text(_ link: AppLinkURL, event: AppLinkEvent?, secrets: SecretFilter) -> [String] {
            var block = TextBlock()
            block.add("inputURL", secrets.url(link.inputURL))
            let kind =
                link.isLegacyLink
                ? "yes (legacy fb<APPID>://authorize link)"
                : link.isAppLink
                    ? "yes" : "no" + (link.rejection.map { " (rejected: \($0.code): \($0))" } ?? " (plain deep link)")
            block.add("isAppLink", kind)
            block.add("targetURL", secrets.url(link.targetURL))
            block.add("ref", link.ref ?? "none")
            block.add("referer", link.appLinkReferer.map { "\($0.appName) <\(secrets.url($0.url))>" } ?? "none")
            block.add("inputQueryParameters", lines: TextBlock.pairs(secrets.fields(link.inputQueryParameters)))
            block.add("targetQueryParameters", lines: TextBlock.pairs(secrets.fields(link.targetQueryParameters)))
            block.add(
                "appLinkData", link.appLinkData.map { secrets.json(.object($0)).jsonText(sortedKeys: true) } ?? "none")
            block.add(
                "appLinkExtras",
                link.appLinkExtras.map { secrets.json(.object($0)).jsonText(sortedKeys: true) } ?? "none")
            if let event {
                block.add("event", lines: [event.name] + TextBlock.pairs(event.fields).map { "  " + $0 })
            } else {
                block.add("event", "none (a plain deep link posts nothing)")
            }
            return block.lines
        }
    }
}

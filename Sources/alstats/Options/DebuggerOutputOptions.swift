import AppLinks
import ArgumentParser
import Foundation
import MeasurementEvents

/// The output of `inspect`, `resolve` and `navigate`: readable text or JSON with the key names of docs/cli.md.
enum DebuggerFormat: String, ExpressibleByArgument, CaseIterable {
    case text
    case json
}

/// `--format` and `--show-secrets`, shared by the link debugger commands.
struct DebuggerOutputOptions: ParsableArguments {
    @Option(help: "Output format: text (aligned, for people) or json (the key names of docs/cli.md).")
    var format: DebuggerFormat = .text

    @Flag(help: "Print secret values (access tokens, ...) instead of REDACTED. Keep them out of logs.")
    var showSecrets = false

    /// What replaces secrets in this command's output.
    var secrets: SecretFilter { SecretFilter(showSecrets: showSecrets) }

    /// Prints `json` (pretty, sorted keys) or the text lines, to stdout.
    func emit(json: JSONValue, text: [String]) {
        switch format {
        case .json: print(json.prettyText())
        case .text: print(text.joined(separator: "\n"))
        }
    }
}

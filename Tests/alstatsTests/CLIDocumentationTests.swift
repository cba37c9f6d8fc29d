#if Server

import Foundation
import MeasurementEvents
import TestSupport
import Testing

/// docs/cli.md held to the binary, so that it cannot drift: every subcommand has its section, every option of
/// a subcommand's `--help` is named in its section (its syntax block or its table of options) with the default the
/// binary has, and every option a section names is one the subcommand has. The binary describes itself with
/// ArgumentParser's `--experimental-dump-help`. Only the full build's binary (with `serve`) is held to the page.
@Suite(.serialized)
struct CLIDocumentationTests {
    /// One option of a subcommand, as the binary has it.
    struct Option: Hashable {
        var name: String
        /// The default `--help` shows; `off` for a flag.
        var defaultValue: String?
    }

    /// What a section of docs/cli.md says of its subcommand's options.
    struct Section {
        /// The options named in its syntax block or in the first column of its tables.
        var named: Set<String> = []
        /// The default column of its table of options, by option.
        var defaults: [String: String] = [:]
    }

    /// Every subcommand of the binary (`report`, `links put`) and its options, `--help` and `--version` aside.
    static func binaryOptions() throws -> [String: [Option]] {
        let dump = try BuiltAlstats.run(["--experimental-dump-help"])
        #expect(dump.status == 0, "\(dump.errors)")
        var result: [String: [Option]] = [:]
        func walk(_ command: JSONValue, path: [String]) {
            guard case .array(let subcommands)? = command["subcommands"] else { return }
            for subcommand in subcommands {
                guard let name = subcommand["commandName"]?.stringValue, name != "help" else { continue }
                var options: [Option] = []
                if case .array(let arguments)? = subcommand["arguments"] {
                    for argument in arguments where argument["shouldDisplay"] != .bool(false) {
                        guard case .array(let names)? = argument["names"],
                            let long = names.first(where: { $0["kind"] == "long" })?["name"]?.stringValue,
                            !["help", "version"].contains(long)
                        else { continue }
                        let flag = argument["kind"] == "flag"
                        options.append(
                            Option(
                                name: "--" + long, defaultValue: flag ? "off" : argument["defaultValue"]?.stringValue))
                    }
                }
                result[(path + [name]).joined(separator: " ")] = options
                walk(subcommand, path: path + [name])
            }
        }
        walk(try JSONValue.parse(dump.output)["command"] ?? .null, path: [])
        return result
    }

    /// The sections of docs/cli.md, by subcommand (`## \`alstats report\``, `### \`alstats links put\``).
    static func documentedSections() throws -> [String: Section] {
        let text = try String(contentsOfFile: Repository.path("docs/cli.md"), encoding: .utf8)
        var sections: [String: Section] = [:]
        var current: String?
        var inCode = false
        var defaultColumn: Int?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let heading = line.wholeMatch(of: /#{2,3} `alstats ([a-z ]+)`/) {
                current = String(heading.1)
                sections[String(heading.1), default: Section()] = Section()
                continue
            }
            if line.hasPrefix("## ") || line.hasPrefix("### ") { defaultColumn = nil }
            guard let command = current else { continue }
            if line.hasPrefix("```") {
                inCode.toggle()
                continue
            }
            let options = line.matches(of: /--[a-z][a-z-]*/).map { String($0.output) }
            if inCode {
                // The syntax block: its lines start with the command or continue it.
                if line.hasPrefix("alstats \(command)") || line.hasPrefix(" ") {
                    sections[command]?.named.formUnion(options)
                }
                continue
            }
            guard line.hasPrefix("|") else {
                defaultColumn = nil
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
                .map { $0.trimmingCharacters(in: .whitespaces) }
            if cells.first == "option" {
                defaultColumn = cells.firstIndex(of: "default")
                continue
            }
            guard let first = cells.first, first.hasPrefix("`--") else { continue }
            let names = first.matches(of: /--[a-z][a-z-]*/).map { String($0.output) }
            sections[command]?.named.formUnion(names)
            if let column = defaultColumn, column < cells.count {
                for name in names { sections[command]?.defaults[name] = cells[column] }
            }
        }
        return sections
    }

    /// A default as written, compared as the binary prints it: without backticks, numbers by value.
    static func normalized(_ text: String) -> String {
        let bare = text.replacingOccurrences(of: "`", with: "").replacingOccurrences(of: ",", with: "")
        if let number = Double(bare) { return number == number.rounded() ? String(Int(number)) : String(number) }
        return bare
    }

    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func everyOptionOfTheBinaryIsInDocsCLIWithItsDefaultAndNoOther() throws {
        let binary = try Self.binaryOptions()
        let docs = try Self.documentedSections()
        #expect(!binary.isEmpty && !docs.isEmpty)
        for (command, options) in binary.sorted(by: { $0.key < $1.key }) {
            // A command group (`links`) has its subcommands' sections.
            if options.isEmpty, binary.keys.contains(where: { $0.hasPrefix(command + " ") }) { continue }
            guard let section = docs[command] else {
                Issue.record("docs/cli.md has no section `alstats \(command)`")
                continue
            }
            for option in options {
                #expect(
                    section.named.contains(option.name),
                    "docs/cli.md, `alstats \(command)`: \(option.name) is not named in its syntax or its table")
                guard let value = option.defaultValue, option.name != "--database" else { continue }
                // A section may refer to another for shared options (`navigate`: "the options of `resolve`"): the
                // default of a command whose option has the same default in the binary stands for it.
                let alike = binary.filter { $0.value.contains(option) }.keys.sorted()
                let documented =
                    section.defaults[option.name]
                    ?? alike.compactMap { docs[$0]?.defaults[option.name] }
                    .first
                guard let documented else {
                    Issue.record("docs/cli.md, `alstats \(command)`: \(option.name) has no default column (\(value))")
                    continue
                }
                let expected = option.defaultValue == "off" ? "off" : Self.normalized(value)
                #expect(
                    Self.normalized(documented) == expected,
                    "docs/cli.md, `alstats \(command)`: \(option.name) defaults to \(value), the page says \(documented)"
                )
            }
            let real = Set(options.map(\.name))
            for named in section.named.sorted() where !real.contains(named) {
                Issue.record("docs/cli.md, `alstats \(command)` names \(named), which the binary does not have")
            }
        }
        for command in docs.keys.sorted() where binary[command] == nil {
            Issue.record("docs/cli.md documents `alstats \(command)`, which the binary does not have")
        }
        // The table of subcommands at the top lists every one, and no other.
        let text = try String(contentsOfFile: Repository.path("docs/cli.md"), encoding: .utf8)
        let listed = Set(text.matches(of: /\n\| \[`([a-z-]+)`\]\(#alstats-/).map { String($0.1) })
        let topLevel = Set(binary.keys.filter { !$0.contains(" ") })
        #expect(
            listed == topLevel,
            "docs/cli.md's table of subcommands lists \(listed.sorted()), the binary has \(topLevel.sorted())")
    }
}

#endif

import ArgumentParser
import EventReport
import EventStoreInterface
import Foundation
import MeasurementEvents

extension ALStatsCommand {
    /// `alstats report`: success rates, referer apps, ref categories, daily series and completeness.
    struct ReportCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "report",
            abstract: "Report on the stored App Links events.",
            discussion: """
                Outbound navigation (attempts, success rate, by type, failure reasons, source hosts), back to \
                referer, referer apps, ref categories, a daily series and completeness. The report reads the \
                write-time rollups, so it takes about as long for 10 million events as for a thousand.

                T is an RFC 3339 timestamp or a YYYY-MM-DD date (midnight in --tz). --format json is the stable \
                contract of the report; table output uses colour only on a terminal, and never with NO_COLOR set. \
                The filters combine with AND; --link keeps the link's own events (its page views and arrivals).

                --compare previous adds the report of the window of the same length just before (without --since \
                and --until: the 7 days ending now, compared with the 7 days before) and the alerts: the slices \
                whose success fell by 10 points or more, significantly. Tables and Markdown show the alerts first \
                and each figure's change.

                Examples:
                  alstats report
                  alstats report --since 2025-11-01 --until 2025-12-01 --tz Europe/Paris --format json
                  alstats report --ref newsfeed --format markdown > newsfeed.md
                  alstats report --since 2025-11-10 --until 2025-11-17 --compare previous
                  alstats report --source-host shop.example.com --compare previous --format json
                  alstats report --format html > report.html
                """
        )

        @OptionGroup var database: DatabaseOptions
        @OptionGroup var filters: ReportFilterOptions

        @Option(help: "Output format: table, json, csv, markdown or html.")
        var format: ReportFormat = .table

        @Option(
            help: ArgumentHelp(
                "Compare with the window of the same length just before, and list the alerts.", valueName: "previous"))
        var compare: ReportComparison?

        @Option(
            help: ArgumentHelp("Keep N rows per list (default: 10 in tables, all in other formats).", valueName: "N"))
        var top: Int?

        func validate() throws {
            try filters.validate()
            if let top, top < 0 { throw ValidationError("--top must be 0 or more, not \(top)") }
        }

        func run() async throws {
            try await reportingFailuresAsync {
                var query = try filters.query()
                query.top = top ?? format.defaultTop
                if let compare {
                    do throws(ReportComparison.WindowError) {
                        query = try compare.window(for: query, now: Int64(Date().timeIntervalSince1970 * 1_000))
                    } catch {
                        throw ValidationError("--compare \(compare.rawValue): \(error.description)")
                    }
                }
                try await printReport(of: database, query: query, format: format, comparison: compare)
            }
        }
    }
}

/// The filters of `alstats report`: window, ref, referer app, source host, hosted link, time zone.
struct ReportFilterOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Only events at or after T (inclusive).", valueName: "T"))
    var since: String?

    @Option(help: ArgumentHelp("Only events before T (exclusive).", valueName: "T"))
    var until: String?

    @Option(help: ArgumentHelp("Only events whose ref is R.", valueName: "R"))
    var ref: String?

    @Option(
        name: .customLong("referer-app"), help: ArgumentHelp("Only events whose refererAppName is A.", valueName: "A"))
    var refererApp: String?

    @Option(
        name: .customLong("source-host"),
        help: ArgumentHelp("Only events whose sourceURLHost is H (outbound navigations, returns).", valueName: "H"))
    var sourceHost: String?

    @Option(
        help: ArgumentHelp(
            "Only the events of the hosted link SLUG: its page views and its arrivals in the app.", valueName: "SLUG"))
    var link: String?

    /// Read unconditionally, so that an offset west of UTC (`--tz -05:00`) is the option's value, not an option.
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Time zone of dates: an IANA name (Europe/Paris) or an offset (+05:30, -05:00).", valueName: "ZONE"))
    var tz: String = "UTC"

    func validate() throws {
        _ = try query()
    }

    /// The report query these options describe.
    func query() throws -> ReportQuery {
        guard let zone = ReportTimeZone(tz) else {
            throw ValidationError("--tz '\(tz)' is not a time zone name (Europe/Paris, UTC) or an offset (+05:30)")
        }
        let window = (
            since: try Self.time("--since", since, in: zone), until: try Self.time("--until", until, in: zone)
        )
        if let start = window.since, let end = window.until, end < start {
            throw ValidationError(
                "--until \(until ?? "") is before --since \(since ?? ""): give a window that ends after it starts")
        }
        return ReportQuery(
            since: window.since, until: window.until, ref: ref, refererApp: refererApp, sourceHost: sourceHost,
            link: link, timeZone: zone)
    }

    /// The time of option `name` (`--since`, `--until`) in `zone`, `nil` without one; `alstats alerts` reads its
    /// options with it too.
    /// - Throws: `ValidationError` for a value that is no time, or one outside ``EventTime/supportedRange``.
    static func time(_ name: String, _ value: String?, in zone: ReportTimeZone) throws -> Int64? {
        guard let value else { return nil }
        guard let milliseconds = zone.milliseconds(of: value) else {
            throw ValidationError("\(name) '\(value)' is not an RFC 3339 timestamp or a YYYY-MM-DD date")
        }
        guard EventTime.supportedRange.contains(milliseconds) else {
            throw ValidationError("\(name) '\(value)' is outside the years 0001 to 9999")
        }
        return milliseconds
    }
}

/// `--compare` of `alstats report`: `previous`.
extension ReportComparison: ExpressibleByArgument {}

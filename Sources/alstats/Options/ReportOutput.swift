import ArgumentParser
import EventReport
import EventStoreInterface
import Foundation
import StoreOpening

/// Reads the report of `database` for `query` and writes it to standard output in `format` (colour only
/// for tables on a terminal without NO_COLOR), compared as `comparison` says (`query` then has both bounds).
/// Shared by `report` and `demo`.
func printReport(
    of database: some DatabaseChoice, query: ReportQuery, format: ReportFormat, comparison: ReportComparison? = nil
) async throws {
    let store = try await database.openBackend(.read)
    let report: Report
    do throws(StoreError) {
        report = try await store.reports.readReport(for: query, comparison: comparison)
    } catch {
        throw CLIFailure(error)
    }
    try await store.finish()
    let output = format.render(report, colour: format == .table && Terminal.wantsColour)
    FileHandle.standardOutput.write(Data(output.utf8))
}

/// `--format` of `alstats report`, `query` and `demo`: the report's own formats, parsed by their names.
extension ReportFormat: ExpressibleByArgument {
    /// How many rows each list keeps without `--top` (docs/cli.md): 10 in tables, all in the other formats.
    var defaultTop: Int? { self == .table ? 10 : nil }
}

/// Whether standard output is a terminal that wants colour.
enum Terminal {
    /// Standard output is a terminal and `NO_COLOR` is not set (https://no-color.org).
    static var wantsColour: Bool {
        isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }
}

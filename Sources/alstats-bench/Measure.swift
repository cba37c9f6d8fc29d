import Foundation

/// One figure a benchmark suite reports, with the baseline it is compared to in the same run.
struct Measure: Codable {
    /// The suite: "bus", "store", "ingest", "report".
    var suite: String
    /// The measure's name, for example `post_p50_ns`.
    var name: String
    /// Our figure.
    var value: Double
    /// Its unit, for example "ns", "events/s", "bytes/event", "MB".
    var unit: String
    /// What it is compared to, for example "NotificationCenter.post"; `nil` for an absolute goal.
    var baseline: String?
    /// The baseline's figure in the same run.
    var baselineValue: Double?
    /// `value / baselineValue`.
    var ratio: Double?
    /// The goal in words, for example "ratio <= 0.5" or "value <= 2000".
    var goal: String
    /// Whether the goal was met.
    var met: Bool

    enum CodingKeys: String, CodingKey {
        case suite, name, value, unit, baseline, ratio, goal, met
        case baselineValue = "baseline_value"
    }

    /// A measure compared to a baseline; the goal is met when `ratio` passes `check`.
    static func compared(
        suite: String, name: String, value: Double, unit: String, baseline: String, baselineValue: Double,
        goal: String, check: (Double) -> Bool
    ) -> Measure {
        let ratio = baselineValue == 0 ? Double.infinity : value / baselineValue
        return Measure(
            suite: suite, name: name, value: value, unit: unit, baseline: baseline, baselineValue: baselineValue,
            ratio: ratio, goal: goal, met: check(ratio))
    }

    /// A measure with an absolute goal.
    static func absolute(suite: String, name: String, value: Double, unit: String, goal: String, met: Bool) -> Measure {
        Measure(
            suite: suite, name: name, value: value, unit: unit, baseline: nil, baselineValue: nil, ratio: nil,
            goal: goal, met: met)
    }
}

/// Prints measures as an aligned table, or as a JSON array with `json`.
func report(_ measures: [Measure], json: Bool) {
    if json {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        if let data = try? encoder.encode(measures), let text = String(data: data, encoding: .utf8) {
            print(text)
        }
        return
    }
    let header = ["suite", "measure", "value", "unit", "baseline", "baseline value", "ratio", "goal", "met"]
    let rows = measures.map { measure -> [String] in
        [
            measure.suite, measure.name, format(measure.value), measure.unit, measure.baseline ?? "-",
            measure.baselineValue.map(format) ?? "-", measure.ratio.map { String(format: "%.3f", $0) } ?? "-",
            measure.goal, measure.met ? "yes" : "NO",
        ]
    }
    let widths = header.indices.map { column in
        ([header] + rows).map { $0[column].count }.max() ?? 0
    }
    for row in [header] + rows {
        let cells = row.enumerated().map { column, cell in
            cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
        }
        print(cells.joined(separator: "  "))
    }
}

private func format(_ value: Double) -> String {
    if value >= 100 || value == value.rounded() { return String(format: "%.0f", value) }
    return String(format: "%.2f", value)
}

/// Resident memory of this process in bytes (from /proc/self/statm), or 0 where it cannot be read.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let parts = text.split(separator: " ")
    guard parts.count > 1, let pages = Int(parts[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Deletes the SQLite database at `path` with its WAL and shared-memory files, if there are any.
func removeDatabase(atPath path: String) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
}

/// The median of `values` (of the two in the middle, the mean).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return (sorted[(sorted.count - 1) / 2] + sorted[sorted.count / 2]) / 2
}

/// Percentile `p` (0...1) of sorted samples.
func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))
    return Double(sorted[index])
}

/// Monotonic nanoseconds.
@inline(__always)
func nowNanoseconds() -> UInt64 {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

import EventStoreInterface
import Foundation
import MeasurementEvents

/// `alstats-bench decode`: NDJSON lines read into events by ``NDJSONCodec`` (what `alstats ingest`'s reader
/// and every collector request do first), against Foundation's `JSONSerialization` reading the same lines into
/// dictionaries. Realistic lines with random ids; each side's best of five passes, so that the figure is the
/// reader's own cost, not the machine's noise. No goal: the suite is the measuring stick for the reader.
enum DecodeBenchmark {
    static let suite = "decode"

    static func run(_ arguments: BenchArguments) throws -> [Measure] {
        let count = Int(arguments.values["events"] ?? "") ?? (arguments.quick ? 30_000 : 300_000)
        var generator = RealisticLines(style: .random, seed: UInt64(arguments.values["seed"] ?? "") ?? 1)
        var bytes: [UInt8] = []
        var lines: [Range<Int>] = []
        for _ in 0..<count {
            let start = bytes.count
            bytes.append(contentsOf: generator.next().utf8)
            lines.append(start..<bytes.count)
        }
        let codec = NDJSONCodec()
        let ours = try bestOfFive(lines: count) {
            try bytes.withUnsafeBufferPointer { buffer throws(NDJSONLineError) in
                for range in lines {
                    var truncated = 0
                    _ = try codec.decode(
                        utf8: UnsafeBufferPointer(rebasing: buffer[range]), truncatedValues: &truncated)
                }
            }
        }
        let datas = lines.map { Data(bytes[$0]) }
        let theirs = try bestOfFive(lines: count) {
            for data in datas {
                guard try JSONSerialization.jsonObject(with: data) is [String: Any] else {
                    throw BenchFailure("JSONSerialization read a line that is not an object")
                }
            }
        }
        return [
            Measure.compared(
                suite: suite, name: "ndjson_lines_read_per_s", value: ours, unit: "lines/s",
                baseline: "JSONSerialization, same lines", baselineValue: theirs, goal: "none (the reader's own cost)",
                check: { _ in true })
        ]
    }

    /// Lines per second of the fastest of five runs of `body` over `lines` lines.
    static func bestOfFive(lines: Int, _ body: () throws -> Void) throws -> Double {
        var fastest = UInt64.max
        for _ in 0..<5 {
            let start = nowNanoseconds()
            try body()
            fastest = min(fastest, nowNanoseconds() - start)
        }
        return Double(lines) / (Double(fastest) / 1e9)
    }
}

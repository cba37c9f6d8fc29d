import Foundation

// alstats-bench: each suite measures alstats side by side with its baseline in the same run and prints
// the ratios. Usage: alstats-bench SUITE... [--json]
//   (suites: bus, store, ingest, decode, report, reliability, serve, limits, upload, links, clicks, prune,
//   postgres)

/// The suites by name. Each returns its measures.
var suites: [String: (BenchArguments) throws -> [Measure]] = [
    "bus": BusBenchmark.run,
    "store": StoreBenchmark.run,
    "ingest": IngestBenchmark.run,
    "decode": DecodeBenchmark.run,
    "report": ReportBenchmark.run,
    "reliability": ReliabilityBenchmark.run,
    "serve": ServeBenchmark.run,
    "limits": LimitsBenchmark.run,
    "upload": UploadBenchmark.run,
    "links": LinksBenchmark.run,
    "clicks": ClickTokenBenchmark.run,
    "prune": PruneBenchmark.run,
]
#if Server
// The PostgreSQL backend against COPY and per-event INSERTs; needs --postgres-url.
suites["postgres"] = PostgresBenchmark.run
#endif

/// Options every suite may read.
struct BenchArguments {
    var json = false
    /// `--quick`: smaller sizes, for a smoke run in CI.
    var quick = false
    var values: [String: String] = [:]
}

var arguments = BenchArguments()
var selected: [String] = []
var iterator = CommandLine.arguments.dropFirst().makeIterator()
while let argument = iterator.next() {
    switch argument {
    case "--json": arguments.json = true
    case "--quick": arguments.quick = true
    case "-h", "--help":
        print(
            "usage: alstats-bench SUITE... [--json] [--quick] [--NAME VALUE]\nsuites: \(suites.keys.sorted().joined(separator: ", "))"
        )
        exit(0)
    case let option where option.hasPrefix("--"):
        arguments.values[String(option.dropFirst(2))] = iterator.next() ?? ""
    default:
        selected.append(argument)
    }
}
if selected.isEmpty || selected == ["all"] { selected = suites.keys.sorted() }
var measures: [Measure] = []
for name in selected {
    guard let suite = suites[name] else {
        FileHandle.standardError.write(
            Data(
                "alstats-bench: unknown suite '\(name)'; suites: \(suites.keys.sorted().joined(separator: ", "))\n".utf8
            ))
        exit(64)
    }
    do {
        measures += try suite(arguments)
    } catch {
        FileHandle.standardError.write(Data("alstats-bench: \(name) failed: \(error)\n".utf8))
        exit(74)
    }
}
report(measures, json: arguments.json)

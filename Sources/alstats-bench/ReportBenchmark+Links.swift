import Foundation
import MeasurementEvents

/// The links section's part of `alstats-bench report`: the report of a database holding hosted link hits
/// (and the App Link arrivals that follow some of them) beside the report of the same database without
/// them. Goal (issue 14): with 10M hits, at most 2x the time of the report without hits.
extension ReportBenchmark {
    /// The public URL of the benchmark's links.
    static let publicURL = "https://go.example.com"

    /// Measures the report on `base` events plus each of `hits` hits, against the report on `base` events;
    /// the two run in alternation, 7 times each, and the medians are compared (the machine is shared).
    static func linkMeasures(
        base: Int, hits: [Int], folder: URL, alstats: String
    ) throws -> [Measure] {
        let basePath = folder.appendingPathComponent("report-\(base).sqlite").path
        try populate(basePath, events: base)
        var measures: [Measure] = []
        for count in hits {
            let path = folder.appendingPathComponent("report-\(base)-hits-\(count).sqlite").path
            try populate(path, events: base, hits: count)
            var with: [Double] = []
            var without: [Double] = []
            for _ in 0..<7 {
                with.append(try time(alstats, ["report", "--database", path, "--format", "json"]))
                without.append(try time(alstats, ["report", "--database", basePath, "--format", "json"]))
            }
            measures.append(
                Measure.compared(
                    suite: suite, name: "report_ms_\(label(base))_with_\(label(count))_hits",
                    value: with.sorted()[3] * 1_000, unit: "ms",
                    baseline: "report of the \(label(base)) events without hits",
                    baselineValue: without.sorted()[3] * 1_000, goal: count >= 10_000_000 ? "ratio <= 2" : "(reported)",
                    check: { count >= 10_000_000 ? $0 <= 2 : true }))
        }
        return measures
    }

    /// `1M`, `200k`.
    static func label(_ size: Int) -> String {
        size >= 1_000_000 ? "\(size / 1_000_000)M" : "\(size / 1_000)k"
    }

    /// Hit `index` of `total` (a fifth of `total` more are arrivals), spread over the same 30 days as the
    /// events: 50 slugs, 3% of them unknown (404), 15% crawlers, visitors drawn from 200,000 per slug and
    /// day, the benchmark's refs; arrivals at the links' canonical URLs, some with a query.
    static func linkEvent(_ index: Int, of total: Int) -> MeasurementEvent {
        var hash = UInt64(index) &* 0xD6E8_FEB8_6659_FD93
        hash ^= hash >> 32
        func pick(_ count: Int) -> Int {
            defer { hash = hash &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
            return Int((hash >> 33) % UInt64(count))
        }
        let all = total + total / 5
        let timestamp = start + Int64(index) * (days * 86_400_000) / Int64(all)
        let id = EventID(uuidHigh: UInt64(timestamp) << 16 | 0x7000, low: 0x9000_0000_0000_0000 | UInt64(index))
        let slug = "link-\(pick(50))"
        var fields: [String: String] = [FieldName.ref: BenchEvents.refs[pick(BenchEvents.refs.count)]]
        guard index < total else {
            fields[FieldName.targetURL] = "\(publicURL)/l/\(slug)" + (pick(2) == 0 ? "" : "?referral=\(pick(1_000))")
            fields[FieldName.refererAppName] = BenchEvents.apps[pick(BenchEvents.apps.count)]
            return MeasurementEvent(id: id, name: EventName.navIn, fields: fields, timestamp: timestamp)
        }
        let known = pick(100) >= 3
        fields["slug"] = known ? slug : "missing-\(pick(20))"
        fields["status"] = known ? "200" : "404"
        fields["crawler"] = pick(100) < 15 ? "1" : "0"
        fields["platform"] = ["ios", "android", "web"][pick(3)]
        fields["visitor"] = String(format: "%016llx", UInt64(pick(200_000)) &* 0x9E37_79B9_7F4A_7C15)
        return MeasurementEvent(id: id, name: "alstats_link_hit", fields: fields, timestamp: timestamp)
    }
}

import Foundation
import MeasurementEvents

// The events the tests feed the modules and the built `alstats`, shared by every test target (EventStoreSQLiteTests,
// EventReportTests, EventUploadTests, alstatsTests, ...): one generator each.

/// Events with the shapes of the catalogue, deterministic for `count`.
public func sampleEvents(_ count: Int, start: Int64 = 1_763_683_200_000, idPrefix: String? = nil) -> [MeasurementEvent]
{
    (0..<count).map { index in
        let timestamp = start + Int64(index) * 61_000
        let id =
            idPrefix.map { EventID("\($0)-\(index)") }
            ?? EventID(uuidHigh: 0x0192_f5c3_8a1b_7000 | UInt64(index), low: 0x8000_0000_0000_0000 | UInt64(index))
        switch index % 4 {
        case 0:
            return MeasurementEvent(
                id: id, name: EventName.navIn,
                fields: [
                    FieldName.inputURL: "example://item/\(index)?ref=feed", FieldName.inputURLScheme: "example",
                    FieldName.targetURL: "https://example.com/item/\(index)",
                    FieldName.refererAppName: "App \(index % 3)",
                    FieldName.ref: "feed", FieldName.version: "1.0", "extras/fb_app_id": "\(index)",
                ], timestamp: timestamp)
        case 1:
            return MeasurementEvent(
                id: id, name: EventName.navOut,
                fields: [
                    FieldName.outputURL: "example://item/\(index)", FieldName.sourceURL: "https://example.com/\(index)",
                    FieldName.sourceURLHost: "example.com", FieldName.success: index % 8 == 1 ? "0" : "1",
                    FieldName.type: index % 8 == 1 ? "fail" : "app", FieldName.ref: "feed",
                ].merging(index % 8 == 1 ? [FieldName.error: "not installed"] : [:]) { $1 }, timestamp: timestamp)
        case 2:
            return MeasurementEvent(
                id: id, name: EventName.refBackOut,
                fields: [
                    FieldName.outputURL: "referer://back", FieldName.success: "1", FieldName.type: "app",
                    FieldName.refererAppName: "App \(index % 3)",
                ], timestamp: timestamp)
        default:
            return MeasurementEvent(
                id: id, name: "signup", fields: ["plan": "pro", FieldName.success: "yes"], timestamp: timestamp)
        }
    }
}

/// Events of every shape the report distinguishes, over `days` days from `start`, deterministic for `seed`.
public func generatedEvents(count: Int, seed: UInt64, start: Int64 = 1_774_137_600_000, days: Int64 = 12)
    -> [MeasurementEvent]
{
    var random = SeededGenerator(seed: seed)
    let apps: [String?] = ["Facebook", "Messenger", "Instagram", nil, "Notes | \"quoted\", app"]
    let refs: [String?] = ["feed", "search", nil, "share", "émoji 🎉"]
    let hosts: [String?] = ["example.com", "news.example.org", nil]
    let errors: [String?] = ["no target could be opened", "resolution failed: timeout", nil]
    return (0..<count).map { index in
        let timestamp = start + Int64.random(in: 0..<(days * 86_400_000), using: &random)
        var fields: [String: String] = [:]
        if let ref = refs.randomElement(using: &random)! { fields[FieldName.ref] = ref }
        let name: String
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<38:
            name = EventName.navIn
            if let app = apps.randomElement(using: &random)! { fields[FieldName.refererAppName] = app }
        case 38..<80:
            name = EventName.navOut
            let type = ["app", "app", "web", "fail"].randomElement(using: &random)!
            fields[FieldName.type] = type
            fields[FieldName.success] = type == "fail" ? "0" : "1"
            if let host = hosts.randomElement(using: &random)! { fields[FieldName.sourceURLHost] = host }
            if type == "fail", let error = errors.randomElement(using: &random)! { fields[FieldName.error] = error }
            if Int.random(in: 0..<10, using: &random) == 0 { fields[FieldName.refererAppName] = "OnlyOutbound" }
        case 80..<95:
            name = EventName.refBackOut
            fields[FieldName.success] = Bool.random(using: &random) ? "1" : "0"
            if let app = apps.randomElement(using: &random)! { fields[FieldName.refererAppName] = app }
        case 95..<98:
            name = EventName.linkRejected
            fields[FieldName.error] = ["malformed_json", "unsupported_version"].randomElement(using: &random)!
        default:
            name = "signup"
        }
        let id = EventID(String(format: "gen-%08d", index))
        return MeasurementEvent(id: id, name: name, fields: fields, timestamp: timestamp)
    }
}

/// `count` events with distinct ids, the `index` field numbering them.
public func numberedEvents(_ count: Int, start: Int = 0, padding: Int = 0) -> [MeasurementEvent] {
    (start..<start + count).map { index in
        var fields = [FieldName.ref: "feed", "index": String(index)]
        if padding > 0 { fields["padding"] = String(repeating: "x", count: padding) }
        return MeasurementEvent(
            id: EventID(uuidHigh: 0x0192_f5c3_8a1b_7000, low: 0x8000_0000_0000_0000 | UInt64(index)),
            name: EventName.navOut, fields: fields, timestamp: 1_763_683_200_000 + Int64(index))
    }
}

/// Events whose text fields look like numbers: `007`, `7` and `1e3` are three refs, referer apps and source hosts,
/// with one, two and three arrivals and as many failed outbound navigations (a query's text parameter must find its
/// own text, not the number it reads as).
public let numberLikeSampleEvents: [MeasurementEvent] = ["007", "7", "1e3"].enumerated().flatMap { index, text in
    (0...index).flatMap { copy in
        let timestamp = 1_763_683_200_000 + Int64(index * 10 + copy) * 1_000
        return [
            MeasurementEvent(
                name: EventName.navIn, fields: [FieldName.ref: text, FieldName.refererAppName: text],
                timestamp: timestamp),
            MeasurementEvent(
                name: EventName.navOut,
                fields: [
                    FieldName.ref: text, FieldName.success: "0", FieldName.type: "fail", FieldName.sourceURLHost: text,
                ], timestamp: timestamp),
        ]
    }
}

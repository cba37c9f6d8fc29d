import EventStoreInterface
import MeasurementEvents

/// Deterministic App Links events for the store and ingest suites: the three catalogue events in the
/// proportions a host sees (arrivals, outbound navigations with some failures, returns), with real URLs
/// carrying percent-encoded `al_applink_data`; and ``wide(_:seed:)``, the events of ``WideLines``.
enum BenchEvents {
    static let refs = ["newsfeed", "search", "profile", "notification", "share", "ad", "email", "qr"]
    static let apps = ["Facebook", "Messenger", "Instagram", "Mail", "Safari", "Notes"]
    static let hosts = ["example.com", "news.example.org", "shop.example.net", "blog.example.io", "m.example.com"]

    /// Event `index` of a run starting at `start` (ms), one event per 7 ms.
    static func event(_ index: Int, start: Int64 = 1_763_683_200_000) -> MeasurementEvent {
        let ref = refs[index % refs.count]
        let app = apps[(index / 3) % apps.count]
        let host = hosts[(index / 7) % hosts.count]
        let timestamp = start + Int64(index) * 7
        let data =
            "%7B%22target_url%22%3A%22https%3A%2F%2F\(host)%2Farticle%2F\(index)%22%2C%22ref%22%3A%22\(ref)%22%7D"
        let id = EventID(
            uuidHigh: UInt64(timestamp) << 16 | 0x7000 | UInt64(index & 0xFFF),
            low: 0x8000_0000_0000_0000 | UInt64(index))
        switch index % 5 {
        case 0, 1:
            return MeasurementEvent(
                id: id, name: EventName.navIn,
                fields: [
                    FieldName.inputURL: "example://article/\(index)?al_applink_data=\(data)",
                    FieldName.inputURLScheme: "example",
                    FieldName.targetURL: "https://\(host)/article/\(index)",
                    FieldName.refererURL: "fb://profile/\(index % 1000)",
                    FieldName.refererAppName: app,
                    FieldName.ref: ref,
                    FieldName.version: "1.0",
                ], timestamp: timestamp)
        case 2, 3:
            let failed = index % 13 == 0
            var fields = [
                FieldName.outputURL: "example://article/\(index)?al_applink_data=\(data)",
                FieldName.outputURLScheme: "example",
                FieldName.sourceURL: "https://\(host)/article/\(index)",
                FieldName.sourceURLHost: host,
                FieldName.success: failed ? "0" : "1",
                FieldName.type: failed ? "fail" : (index % 4 == 0 ? "web" : "app"),
                FieldName.version: "1.0",
                FieldName.ref: ref,
            ]
            if failed { fields[FieldName.error] = "no target could be opened" }
            return MeasurementEvent(id: id, name: EventName.navOut, fields: fields, timestamp: timestamp)
        default:
            return MeasurementEvent(
                id: id, name: EventName.refBackOut,
                fields: [
                    FieldName.outputURL: "fb://profile/\(index % 1000)",
                    FieldName.outputURLScheme: "fb",
                    FieldName.sourceURL: "fb://profile/\(index % 1000)",
                    FieldName.success: "1",
                    FieldName.type: "app",
                    FieldName.version: "1.0",
                    FieldName.refererAppName: app,
                    FieldName.ref: ref,
                ], timestamp: timestamp)
        }
    }

    /// The first `count` events of ``WideLines`` from `seed`, decoded as `alstats ingest` decodes them: the
    /// malformed lines (they cannot be events) are skipped, the duplicate lines kept (a store drops them).
    static func wide(_ count: Int, seed: UInt64) -> [MeasurementEvent] {
        var lines = WideLines(seed: seed)
        let codec = NDJSONCodec()
        var events: [MeasurementEvent] = []
        events.reserveCapacity(count)
        while events.count < count {
            if let event = try? codec.decode(lines.next()) { events.append(event) }
        }
        return events
    }
}

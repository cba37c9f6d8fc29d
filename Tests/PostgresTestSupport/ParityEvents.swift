#if Server

import MeasurementEvents

/// Events for the parity tests, deterministic for `seed`, over `days` UTC days from 2026-03-22: random UUID and
/// text ids, duplicates of earlier ids (with other content), the three App Links events, another event name,
/// secrets in URLs and extra fields (redacted by both stores), hits of hosted links (people and crawlers, 200 and
/// 404, visitors seen again) and arrivals at link URLs and at URLs that only look like them. Some text ids, refs and
/// referer apps are the same text in two Unicode normalisations (`é` as U+00E9 and as `e` + U+0301): two ids and
/// two groups for both stores, as their bytes differ.
public func parityEvents(count: Int, seed: UInt64, days: Int64 = 9) -> [MeasurementEvent] {
    var random = SeededGenerator(seed: seed)
    let start: Int64 = 1_774_137_600_000
    let refs = ["feed", "search", "share", "email", "caf\u{E9}", "cafe\u{301}", nil]
    let apps = ["Facebook", "Messenger", "Mail", "R\u{E9}seau", "Re\u{301}seau", nil]
    let hosts = ["shop.example.net", "video.example.org", "recipes.example.com"]
    let slugs = ["invite", "spring-sale", "promo_2"]
    var events: [MeasurementEvent] = []
    for index in 0..<count {
        let timestamp = start + Int64.random(in: 0..<(days * 86_400_000), using: &random)
        let id: EventID
        switch Int.random(in: 0..<20, using: &random) {
        case 0 where !events.isEmpty: id = events[Int.random(in: 0..<events.count, using: &random)].id
        case 1: id = EventID("evt-\(index % 97)-\(Int.random(in: 0..<3, using: &random))")
        case 2: id = EventID(["\u{E9}vt-\(index % 13)", "e\u{301}vt-\(index % 13)"].randomElement(using: &random)!)
        default: id = EventID(uuidHigh: random.next(), low: random.next())
        }
        var fields: [String: String] = [:]
        fields["ref"] = refs.randomElement(using: &random)!
        fields["refererAppName"] = apps.randomElement(using: &random)!
        var name: String
        switch Int.random(in: 0..<10, using: &random) {
        case 0...2:
            name = EventName.navIn
            let slug = slugs.randomElement(using: &random)!
            fields[FieldName.targetURL] =
                [
                    "https://go.example.com/l/\(slug)?referral=1", "HTTPS://Go.Example.com/l/\(slug)",
                    "https://go.example.com/x/l/\(slug)", "https://app.example/p?access_token=s3cret",
                ].randomElement(using: &random)!
            fields[FieldName.inputURL] = "https://in.example/open?token=abc\(index)&x=1"
        case 3...5:
            name = EventName.navOut
            fields[FieldName.success] = ["1", "0", "maybe"].randomElement(using: &random)!
            fields[FieldName.type] = ["app", "web", "fail"].randomElement(using: &random)!
            fields[FieldName.sourceURLHost] = hosts.randomElement(using: &random)!
            if fields[FieldName.type] == "fail" { fields[FieldName.error] = "no_installed_target" }
        case 6:
            name = EventName.refBackOut
            fields[FieldName.success] = ["1", "0"].randomElement(using: &random)!
        case 7...8:
            name = "alstats_link_hit"
            fields["slug"] = slugs.randomElement(using: &random)!
            fields["status"] = ["200", "200", "404", "2x0"].randomElement(using: &random)!
            fields["crawler"] = ["0", "0", "1"].randomElement(using: &random)!
            fields["visitor"] = "v\(Int.random(in: 0..<15, using: &random))"
        default:
            name = "custom_thing"
            fields["password"] = "hunter2"
            fields["note"] = "line \"quoted\"\nand ünïcode"
        }
        // Every sixth event is one of the install path instead (docs/install.md): store taps, installs with numeric
        // and other delays, deferred opens at link URLs (and at URLs that only look like them), first opens.
        if index % 6 == 5 {
            let slug = slugs.randomElement(using: &random)!
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                name = EventName.linkStore
                fields = ["slug": slug, FieldName.ref: fields[FieldName.ref]].compactMapValues { $0 }
                fields["platform"] = ["ios", "android", "web"].randomElement(using: &random)!
                fields["crawler"] = ["0", "0", "1"].randomElement(using: &random)!
            case 1:
                name = EventName.linkInstall
                fields = ["slug": slug, FieldName.ref: fields[FieldName.ref]].compactMapValues { $0 }
                fields["platform"] = ["ios", "android"].randomElement(using: &random)!
                fields["delay_ms"] = ["\(Int.random(in: 0..<5_000_000, using: &random))", "12x", "99"]
                    .randomElement(using: &random)!
            case 2:
                name = EventName.navIn
                fields[FieldName.deferred] = "1"
                fields[FieldName.targetURL] = [
                    "https://go.example.com/l/\(slug)?ref=feed", "HTTPS://GO.example.com/l/\(slug)",
                    "https://go.example.com/L/\(slug)",
                ].randomElement(using: &random)!
            default:
                name = EventName.firstOpen
                fields = ["attributed": ["1", "0"].randomElement(using: &random)!]
            }
        }
        events.append(
            MeasurementEvent(id: id, name: name, fields: fields.compactMapValues { $0 }, timestamp: timestamp))
    }
    return events
}

/// Events whose counts tie in every dimension a bundled query groups by, from 2026-03-22: six refs and six referer
/// apps (cases, accents in two normalisations, none) with the same arrivals and returns, three source hosts with
/// the same attempts and successes, two errors with the same failures on the same hosts, two hosted links with the
/// same hits, on two days. A query whose ORDER BY leaves a tie undecided may give these rows in another order on
/// each backend; the parity test compares every query's output byte for byte.
public func tiedEvents() -> [MeasurementEvent] {
    let start: Int64 = 1_774_137_600_000
    let texts: [String?] = ["a", "B", "b", "\u{E9}", "e\u{301}", nil]
    var events: [MeasurementEvent] = []
    func add(_ name: String, _ fields: [String: String?], at timestamp: Int64) {
        let index = UInt64(events.count)
        events.append(
            MeasurementEvent(
                id: EventID(uuidHigh: 0x1234_5678_9ABC_4DEF, low: 0x8000_0000_0000_0000 | index), name: name,
                fields: fields.compactMapValues { $0 }, timestamp: timestamp))
    }
    for day in Int64(0)..<2 {
        let noon = start + day * 86_400_000 + 43_200_000
        for (position, text) in texts.enumerated() {
            for copy in 0..<3 {
                let at = noon + Int64(position * 10 + copy) * 60_000
                add(EventName.navIn, [FieldName.ref: text, FieldName.refererAppName: text], at: at)
                let back = [FieldName.ref: text, FieldName.refererAppName: text, FieldName.success: "1"]
                add(EventName.refBackOut, back, at: at)
            }
        }
        for host in ["h1.example", "H2.example", "h3.example"] {
            for outcome in ["app", "web", "fail", "fail"] {
                add(
                    EventName.navOut,
                    [
                        FieldName.sourceURLHost: host, FieldName.type: outcome,
                        FieldName.success: outcome == "fail" ? "0" : "1",
                        FieldName.error: outcome == "fail" ? (host == "h1.example" ? "e_a" : "e_b") : nil,
                        FieldName.ref: "a",
                    ], at: noon)
            }
        }
        for slug in ["s-a", "s-b"] {
            for visitor in 0..<2 {
                add(
                    "alstats_link_hit",
                    ["slug": slug, "status": "200", "crawler": "0", "visitor": "v\(visitor)", FieldName.ref: "a"],
                    at: noon)
            }
        }
    }
    return events
}

#endif

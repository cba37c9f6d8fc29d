import EventStoreInterface
import MeasurementEvents

/// NDJSON lines shaped like what real apps send through an analytics SDK (issue 43), deterministic per seed:
/// about 650 bytes on average but drawn, not fixed (30 to 1,300 bytes; 10 to 20 fields; URLs up to about 550
/// bytes, a third of the App Links carrying percent-encoded `al_applink_data`; tracking parameters and JSON
/// extras), random UUIDv4 ids, about 2%
/// duplicate lines, about 0.3% malformed lines, and about 5% events of other names. The project's own
/// ``RealisticLines`` stay the second workload.
struct WideLines: LineSource {
    static let refs = [
        "newsfeed", "search", "profile", "notification", "share", "ad", "email", "qr", "story", "widget",
        "onboarding", "push_digest",
    ]
    static let apps = [
        ("Facebook", "fb"), ("Messenger", "fb-messenger"), ("Instagram", "instagram"), ("Mail", "message"),
        ("Slack", "slack"), ("Pinterest", "pinterest"), ("Reddit", "reddit"), ("WhatsApp", "whatsapp"),
    ]
    static let hosts = [
        "readly.example.com", "news.example.org", "shop.example.net", "m.blog.example.io", "www.recipes.example",
        "app.travel-example.co.uk", "docs.example.dev", "video.example.tv",
    ]
    static let locales = ["en_US", "en_GB", "de_DE", "fr_FR", "ja_JP", "pt_BR", "es_MX", "it_IT"]
    static let models = ["iPhone15,2", "iPhone14,5", "iPhone16,1", "Pixel 8", "SM-S918B", "iPad13,18"]
    static let others = ["app_open", "screen_view", "purchase", "session_start"]

    private var random: SeededGenerator
    private var recent: [String] = []
    private var index = 0
    private var timestamp: Int64 = 1_763_683_200_000

    /// Lines from `seed`.
    init(seed: UInt64) {
        random = SeededGenerator(seed: seed ^ 0x57D3_11AE)
    }

    private mutating func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

    private mutating func hex(_ digits: Int) -> String {
        var text = ""
        while text.count < digits {
            let value = random.next()
            text += String(value, radix: 16)
        }
        return String(text.prefix(digits))
    }

    /// The next line, without its newline.
    mutating func next() -> String {
        defer { index += 1 }
        if recent.count == 128, draw(100) < 2 { return recent[draw(128)] }
        if draw(1_000) < 3 { return malformed() }
        let line = event()
        if recent.count == 128 { recent[index % 128] = line } else { recent.append(line) }
        return line
    }

    private mutating func malformed() -> String {
        switch draw(4) {
        case 0: return #"{"id":"\#(uuid())","name":"al_nav_in","ts":\#(timestamp),"fields":{"ref":"trunc"#
        case 1: return #"{"id":"\#(uuid())","ts":\#(timestamp),"fields":{"ref":"newsfeed"}}"#
        case 2: return #"{"id":"\#(uuid())","name":"al_nav_out","ts":"yesterday","fields":{}}"#
        default: return "not json at all \(timestamp)"
        }
    }

    private mutating func uuid() -> String {
        let high = random.next() & ~0xF000 | 0x4000
        let low = 0x8000_0000_0000_0000 | (random.next() & 0x3FFF_FFFF_FFFF_FFFF)
        return EventID(uuidHigh: high, low: low).description
    }

    /// A URL of the host's, 60 to 600 bytes: a path of 1 to 4 segments and 0 to 6 tracking parameters.
    private mutating func pageURL(_ host: String, ref: String) -> String {
        var url = "https://\(host)"
        for _ in 0...draw(3) { url += "/" + ["article", "story", "p", "item", "c", "2025", "en"][draw(7)] }
        url += "/\(draw(10_000_000))" + (draw(2) == 0 ? "" : "-" + hex(draw(12) + 4))
        var query = ["ref=\(ref)"]
        for _ in 0..<draw(draw(4) == 0 ? 5 : 2) {
            let name = ["utm_source", "utm_medium", "utm_campaign", "fbclid", "gclid", "mc_eid", "sid"][draw(7)]
            query.append("\(name)=\(hex(draw(14) + 6))")
        }
        return url + "?" + query.joined(separator: "&")
    }

    /// The percent-encoded `al_applink_data` of a link to `target`, with extras of 1 to 5 keys.
    private mutating func appLinkData(target: String, ref: String, app: (String, String)) -> String {
        var extras: [String] = ["\"fb_app_id\":\(1_000_000_000 + draw(900_000_000))"]
        for _ in 0..<draw(3) {
            extras.append(
                "\"\(["campaign", "variant", "cohort", "placement", "creative"][draw(5)])\":\"\(hex(draw(12) + 3))\"")
        }
        let json =
            #"{"target_url":"\#(target)","ref":"\#(ref)","extras":{\#(extras.joined(separator: ","))},"#
            + #""referer_app_link":{"app_name":"\#(app.0)","url":"\#(app.1)://feed"}}"#
        return PercentEncoding.encode(json)
    }

    /// An App Link into the app: with `al_applink_data` one time in three, else a plain deep link.
    private mutating func appLink(target: String, ref: String, app: (String, String)) -> String {
        let article = "readly://article/\(draw(100_000))"
        guard draw(3) == 0 else { return article + "?ref=" + ref }
        return article + "?al_applink_data=" + appLinkData(target: target, ref: ref, app: app)
    }

    /// Optional fields an SDK adds: `count` of them, distinct.
    private mutating func extras(_ count: Int) -> [(key: String, value: String)] {
        var names = [
            "appVersion", "osVersion", "deviceModel", "locale", "sessionId", "networkType", "screen", "latencyMs",
            "experiment", "buildNumber", "country", "userAgent", "extras", "campaign",
        ]
        var members: [(key: String, value: String)] = []
        for _ in 0..<min(count, names.count) {
            let name = names.remove(at: draw(names.count))
            let value: String
            switch name {
            case "appVersion": value = "\(draw(9) + 1).\(draw(30)).\(draw(10))"
            case "osVersion": value = "\(draw(6) + 13).\(draw(7))"
            case "deviceModel": value = Self.models[draw(Self.models.count)]
            case "locale": value = Self.locales[draw(Self.locales.count)]
            case "sessionId": value = hex(16)
            case "networkType": value = ["wifi", "cellular", "5g", "lte"][draw(4)]
            case "screen": value = ["home", "article", "search", "settings", "checkout"][draw(5)]
            case "latencyMs": value = String(draw(4_000))
            case "experiment": value = "exp-\(draw(40))-\(["a", "b", "control"][draw(3)])"
            case "buildNumber": value = String(10_000 + draw(90_000))
            case "country": value = ["US", "GB", "DE", "FR", "JP", "BR", "MX", "IN"][draw(8)]
            case "userAgent":
                value = "Readly/\(draw(9) + 1).\(draw(30)) CFNetwork/1490 Darwin/23.\(draw(6))"
            case "extras": value = #"{\"source\":\"\#(hex(6))\",\"position\":\#(draw(50))}"#
            default: value = "autumn-\(hex(4))"
            }
            members.append((name, value))
        }
        return members
    }

    private mutating func event() -> String {
        draft().line
    }

    /// The next event as its parts, before it is written as a line (``FeedLines`` writes them its own way).
    mutating func draft() -> Draft {
        timestamp += Int64(draw(25))
        let ref = Self.refs[draw(Self.refs.count)]
        let app = Self.apps[draw(Self.apps.count)]
        let host = Self.hosts[draw(Self.hosts.count)]
        let isoTime = draw(4) == 0
        let target = pageURL(host, ref: ref)
        let name: String
        var fields: [(key: String, value: String)]
        switch draw(100) {
        case 0..<45:
            name = EventName.navIn
            let link = appLink(target: target, ref: ref, app: app)
            fields = [
                ("inputURL", link), ("inputURLScheme", "readly"), ("targetURL", target),
                ("refererURL", "\(app.1)://feed"),
                ("refererAppName", app.0), ("ref", ref), ("version", "1.0"),
            ]
        case 45..<85:
            name = EventName.navOut
            let failed = draw(8) == 0
            let type = failed ? "fail" : (draw(3) == 0 ? "web" : "app")
            let link = appLink(target: target, ref: ref, app: app)
            fields = [
                ("outputURL", link), ("outputURLScheme", "readly"), ("sourceURL", target), ("sourceURLHost", host),
                ("success", failed ? "0" : "1"), ("type", type), ("ref", ref), ("version", "1.0"),
            ]
            if failed {
                fields.append(("error", ["no target could be opened", "timeout", "http_status_404"][draw(3)]))
            }
        case 85..<95:
            name = EventName.refBackOut
            fields = [
                ("outputURL", "\(app.1)://feed/\(draw(100_000))"), ("outputURLScheme", app.1), ("sourceURL", target),
                ("sourceURLHost", host), ("success", "1"), ("type", "app"), ("refererAppName", app.0), ("ref", ref),
            ]
        default:
            name = Self.others[draw(Self.others.count)]
            fields = [("screen", ["home", "article"][draw(2)]), ("ref", ref)]
        }
        // 10 to 20 fields in all, the SDK's extras drawn to fill.
        let total = 10 + draw(11)
        fields += extras(max(0, total - fields.count))
        return Draft(id: uuid(), name: name, timestamp: timestamp, isoTime: isoTime, fields: fields)
    }

    /// An event's parts: its id, name, time and fields (all strings, as an SDK that sends flat fields writes them).
    struct Draft {
        var id: String?
        var name: String
        var timestamp: Int64
        /// Whether `ts` is written as RFC 3339 text rather than integer milliseconds.
        var isoTime: Bool
        var fields: [(key: String, value: String)]

        /// The line of the event as WideLines writes it: every field a string.
        var line: String {
            let time = isoTime ? "\"\(EventTime.rfc3339(milliseconds: timestamp))\"" : "\(timestamp)"
            let members = fields.map { #""\#($0.key)":"\#($0.value)""# }.joined(separator: ",")
            let idMember = id.map { #""id":"\#($0)","# } ?? ""
            return #"{\#(idMember)"name":"\#(name)","ts":\#(time),"fields":{\#(members)}}"#
        }
    }
}

/// A generator of NDJSON lines for the benchmarks.
protocol LineSource {
    /// The next line, without its newline.
    mutating func next() -> String
}

extension RealisticLines: LineSource {}

/// The events a suite feeds: `feed` (``FeedLines``, a real feed's mix of shapes), `wide` (``WideLines``) or
/// `realistic` (``RealisticLines``).
enum Workload: String {
    case feed, wide, realistic

    /// The workload of `--workload`, `fallback` when none is given.
    /// - Throws: ``BenchFailure`` for another value.
    static func of(_ arguments: BenchArguments, fallback: Workload = .wide) throws -> Workload {
        guard let workload = Workload(rawValue: arguments.values["workload"] ?? fallback.rawValue) else {
            throw BenchFailure("--workload takes feed, wide or realistic")
        }
        return workload
    }
}

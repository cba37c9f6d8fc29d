import EventStoreInterface
import MeasurementEvents

/// NDJSON lines shaped like the events the world sends (issue 10), deterministic per seed: ~580 bytes,
/// real App Links URLs with percent-encoded `al_applink_data`, about 10% of lines without an id, about 3%
/// duplicate lines (a recent line repeated), `ts` as an integer or an RFC 3339 string, and Android aliases
/// (`intentData`, `sourceHost`, type "failed") on a fifth of outbound navigations.
///
/// The id style changes only the ids: `random` gives UUIDv4 (as Segment and most SDKs send them),
/// `ordered` UUIDv7 in time order, `none` no id on any line (ingest derives one by hashing). The same seed
/// gives the same events, duplicates and missing ids in every style.
struct RealisticLines {
    /// How the lines' ids are made.
    enum IDStyle: String {
        case ordered, random, none
    }

    static let refs = ["newsfeed", "search", "profile", "notification", "share", "ad", "email", "qr"]
    static let apps = [
        ("Facebook", "fb"), ("Messenger", "fb-messenger"), ("Instagram", "instagram"), ("Mail", "message"),
    ]
    static let hosts = ["readly.example.com", "news.example.org", "shop.example.net", "m.blog.example.io"]

    let style: IDStyle
    private var events: SeededGenerator
    private var ids: SeededGenerator
    private var recent: [String] = []
    private var index = 0
    private var timestamp: Int64 = 1_763_683_200_000

    /// Lines for `style`, from `seed`.
    init(style: IDStyle, seed: UInt64) {
        self.style = style
        events = SeededGenerator(seed: seed)
        ids = SeededGenerator(seed: seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// The next line, without its newline.
    mutating func next() -> String {
        defer { index += 1 }
        let draw = events.next()
        if recent.count == 64, draw % 100 < 3 {
            return recent[Int(draw >> 8 % 64)]
        }
        timestamp += Int64(draw >> 16 % 20)
        let line = "{" + idMember(hasID: draw >> 24 % 10 != 0) + #""name":"# + body(draw)
        if recent.count == 64 { recent[index % 64] = line } else { recent.append(line) }
        return line
    }

    /// `"id":"...",` or nothing. The id generator draws the same numbers in every style.
    private mutating func idMember(hasID: Bool) -> String {
        let high = ids.next()
        let low = ids.next()
        guard hasID else { return "" }
        let variant = 0x8000_0000_0000_0000 | (low & 0x3FFF_FFFF_FFFF_FFFF)
        switch style {
        case .none: return ""
        case .random:
            return #""id":""# + EventID(uuidHigh: high & ~0xF000 | 0x4000, low: variant).description + #"","#
        case .ordered:
            let ordered = UInt64(timestamp) << 16 | 0x7000 | (high & 0xFFF)
            return #""id":""# + EventID(uuidHigh: ordered, low: variant).description + #"","#
        }
    }

    /// The rest of the line after `"name":`.
    private func body(_ draw: UInt64) -> String {
        let ref = Self.refs[Int(draw >> 32 % 8)]
        let app = Self.apps[Int(draw >> 36 % 4)]
        let host = Self.hosts[Int(draw >> 40 % 4)]
        let article = Int(draw >> 44 % 100_000)
        let time = draw >> 63 == 0 ? "\"\(EventTime.rfc3339(milliseconds: timestamp))\"" : "\(timestamp)"
        let target = "https%3A%2F%2F\(host)%2Farticle%2F\(article)%3Fref%3D\(ref)"
        let data =
            "%7B%22target_url%22%3A%22\(target)%22%2C%22ref%22%3A%22\(ref)%22%2C"
            + "%22extras%22%3A%7B%22fb_app_id%22%3A1234567890%2C%22campaign%22%3A%22autumn-\(ref)%22%7D%2C"
            + "%22referer_app_link%22%3A%7B%22app_name%22%3A%22\(app.0)%22%2C%22url%22%3A%22\(app.1)%3A%2F%2F"
            + "feed%22%7D%7D"
        let link = "readly://article/\(article)?al_applink_data=\(data)"
        switch draw >> 48 % 10 {
        case 0...4:
            return #""al_nav_in","ts":\#(time),"fields":{"inputURL":"\#(link)","inputURLScheme":"readly","#
                + #""targetURL":"https://\#(host)/article/\#(article)?ref=\#(ref)","refererURL":"\#(app.1)://feed","#
                + #""refererAppName":"\#(app.0)","ref":"\#(ref)","version":"1.0"}}"#
        case 5...8:
            let android = draw >> 52 % 5 == 0
            let failed = draw >> 56 % 13 == 0
            let type = failed ? (android ? "failed" : "fail") : (draw >> 58 % 3 == 0 ? "web" : "app")
            let error = failed ? #","error":"no target could be opened""# : ""
            return #""al_nav_out","ts":\#(time),"fields":{"\#(android ? "intentData" : "outputURL")":"\#(link)","#
                + #""outputURLScheme":"readly","sourceURL":"https://\#(host)/article/\#(article)?ref=\#(ref)","#
                + #""\#(android ? "sourceHost" : "sourceURLHost")":"\#(host)","success":"\#(failed ? 0 : 1)","#
                + #""type":"\#(type)","ref":"\#(ref)","version":"1.0"\#(error)}}"#
        default:
            return #""al_ref_back_out","ts":\#(time),"fields":{"outputURL":"\#(app.1)://feed/\#(article)","#
                + #""outputURLScheme":"\#(app.1)","sourceURL":"https://\#(host)/article/\#(article)?ref=\#(ref)","#
                + #""sourceURLHost":"\#(host)","success":"1","type":"app","refererAppName":"\#(app.0)","#
                + #""ref":"\#(ref)","version":"1.0","campaign":"autumn-\#(ref)"}}"#
        }
    }
}

import MeasurementEvents

/// NDJSON lines as a real feed mixes them (issue 56), deterministic per seed: the events of ``WideLines``
/// (about 600 bytes; App Links URLs, percent-encoded `al_applink_data`, SDK extras), written the ways SDKs and
/// exporters write them. In these proportions (docs/benchmarks.md states them):
/// - `ts`: two thirds integer milliseconds; a third RFC 3339 text, of which half with milliseconds (`...01.971Z`),
///   a quarter with six fractional digits (`...01.971234Z`) and a quarter with an offset (`+02:00`, `-05:30`);
/// - an eighth of the events without an `id` (their id is derived from their content);
/// - field values: a quarter of the events carry a number (`latencyMs: 1234`, `position: 3.5`), a boolean
///   (`isFirstLaunch: true`) or a `null`; a fifth a nested object (`extras: {"campaign": ..., "position": 3}`);
///   a twentieth an array (`tags: ["a", "b"]`);
/// - a sixth of the lines carry top-level keys alstats ignores (`type`, `sentAt`, `context`);
/// - a fifth of the outbound navigations use Android's aliases (`sourceHost`, `intentData`, type `failed`);
/// - a twentieth of the inbound ones arrive on a legacy `fbNNN://authorize#target_url=` link;
/// - a fiftieth carry a secret in a URL (`access_token=...`), which is redacted;
/// - about 2% of the lines repeat a recent line, and 0.3% are malformed.
struct FeedLines: LineSource {
    private var wide: WideLines
    private var random: SeededGenerator
    private var recent: [String] = []
    private var index = 0
    /// The time of the event of each line, by the line's index, instead of ``WideLines``' (a few milliseconds
    /// apart from 2025-11-21): ``PruneBenchmark`` spreads its events over a year. `nil`: WideLines' times.
    private let timeOfLine: (@Sendable (Int) -> Int64)?

    /// Lines from `seed`, their events at `timeOfLine(index)` when it is given.
    init(seed: UInt64, timeOfLine: (@Sendable (Int) -> Int64)? = nil) {
        wide = WideLines(seed: seed)
        random = SeededGenerator(seed: seed ^ 0xF33D_11E5)
        self.timeOfLine = timeOfLine
    }

    private mutating func draw(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }

    /// The next line, without its newline.
    mutating func next() -> String {
        defer { index += 1 }
        if recent.count == 256, draw(100) < 2 { return recent[draw(256)] }
        if draw(1_000) < 3 { return malformed() }
        var draft = wide.draft()
        if let timeOfLine { draft.timestamp = timeOfLine(index) }
        let line = write(draft)
        if recent.count == 256 { recent[index % 256] = line } else { recent.append(line) }
        return line
    }

    private mutating func malformed() -> String {
        switch draw(5) {
        case 0: return #"{"name":"al_nav_in","ts":1763683200000,"fields":{"ref":"trunc"#
        case 1: return #"{"ts":1763683200000,"fields":{"ref":"newsfeed"}}"#
        case 2: return #"{"name":"al_nav_out","ts":"yesterday","fields":{}}"#
        case 3: return #"{"name":"al_nav_out","ts":1763683200000,"fields":"not an object"}"#
        default: return "<html><body>502 Bad Gateway</body></html>"
        }
    }

    /// The draft written as a feed writes it: its time, id, values and extra keys drawn.
    private mutating func write(_ draft: WideLines.Draft) -> String {
        var members: [String] = []
        if draw(8) != 0, let id = draft.id { members.append(#""id":"\#(id)""#) }
        members.append(#""name":"\#(draft.name)""#)
        members.append(#""ts":\#(time(draft.timestamp))"#)
        members.append(#""fields":{\#(fields(of: draft).joined(separator: ","))}"#)
        if draw(6) == 0 {
            switch draw(3) {
            case 0: members.append(#""type":"track""#)
            case 1: members.append(#""sentAt":"\#(EventTime.rfc3339(milliseconds: draft.timestamp + 1_500))""#)
            default:
                members.append(
                    #""context":{"library":{"name":"analytics-ios","version":"4.1.\#(draw(9))"},"locale":"en-US"}"#)
            }
            // Extra keys come anywhere among the members.
            members.swapAt(members.count - 1, draw(members.count))
        }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `ts`: integer milliseconds, or RFC 3339 text in one of the shapes SDKs write.
    private mutating func time(_ milliseconds: Int64) -> String {
        guard draw(3) == 0 else { return "\(milliseconds)" }
        let text = EventTime.rfc3339(milliseconds: milliseconds)  // 2025-11-21T00:00:00.123Z
        switch draw(4) {
        case 0:
            // Six fractional digits: the milliseconds and three more.
            let micros = Int(milliseconds % 1_000) * 1_000 + draw(1_000)
            return #""\#(text.dropLast(4))\#(String(sixDigits: micros))Z""#
        case 1:
            // The same instant at +02:00 or -05:30.
            let (offset, minutes) = draw(2) == 0 ? ("+02:00", 120) : ("-05:30", -330)
            let shifted = EventTime.rfc3339(milliseconds: milliseconds + Int64(minutes) * 60_000)
            return #""\#(shifted.dropLast())\#(offset)""#
        default: return #""\#(text)""#
        }
    }

    /// The draft's fields as members, some as numbers, booleans, nulls, nested objects or arrays, some renamed.
    private mutating func fields(of draft: WideLines.Draft) -> [String] {
        var members: [String] = []
        let isOut = draft.name == EventName.navOut
        let aliased = isOut && draw(5) == 0
        // A feed's SDK sends a few fields fewer than the wide events' (the last of their extras).
        let kept = draft.fields.count > 10 ? draft.fields.count - draw(4) : draft.fields.count
        for (key, original) in draft.fields.prefix(kept) {
            var value = original
            if draw(50) == 0, key.hasSuffix("URL"), value.contains("?") {
                value += "&access_token=EAAB\(draw(1 << 30))"
            }
            if key == "inputURL", draw(20) == 0 {
                value = "fb\(100_000 + draw(900_000))://authorize#target_url=" + PercentEncoding.encode(value)
            }
            switch key {
            case "sourceURLHost" where aliased: members.append(#""sourceHost":"\#(value)""#)
            case "outputURL" where aliased: members.append(#""intentData":"\#(value)""#)
            case "type" where aliased && value == "fail": members.append(#""type":"failed""#)
            case "latencyMs" where draw(2) == 0: members.append(#""latencyMs":\#(value)"#)
            case "extras" where draw(3) == 0:
                members.append(#""extras":{"source":"s\#(draw(100_000))","position":\#(draw(50)),"promoted":false}"#)
            default: members.append(#""\#(key)":"\#(value)""#)
            }
        }
        if draw(4) == 0 {
            switch draw(4) {
            case 0: members.append(#""isFirstLaunch":\#(draw(2) == 0 ? "true" : "false")"#)
            case 1: members.append(#""scrollDepth":\#(draw(100)).\#(draw(10))"#)
            case 2: members.append(#""promoCode":null"#)
            default: members.append(#""retries":\#(draw(4))"#)
            }
        }
        if draw(8) == 0 {
            members.append(#""device":{"model":"Pixel \#(draw(9))","os":{"name":"Android","version":"1\#(draw(6))"}}"#)
        }
        if draw(20) == 0 { members.append(#""tags":["\#(["new", "promo", "beta"][draw(3)])","ab-\#(draw(9))"]"#) }
        return members
    }
}

extension String {
    /// `value` (0 to 999,999) as six digits, zeros first.
    fileprivate init(sixDigits value: Int) {
        let digits = String(value)
        self = String(repeating: "0", count: Swift.max(0, 6 - digits.count)) + digits
    }
}

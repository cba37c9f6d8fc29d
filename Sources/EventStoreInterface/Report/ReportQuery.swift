import Foundation
import MeasurementEvents

/// What a report covers: a time window, filters on `ref`, `refererAppName`, `sourceURLHost` and a hosted
/// link's slug (combined with AND), the time zone of its dates, and how many rows its lists keep.
public struct ReportQuery: Sendable, Hashable {
    /// Window start, ms since the Unix epoch, inclusive; `nil` for no start.
    public var since: Int64?
    /// Window end, ms since the Unix epoch, exclusive; `nil` for no end.
    public var until: Int64?
    /// Keep only events whose `ref` is this.
    public var ref: String?
    /// Keep only events whose `refererAppName` is this.
    public var refererApp: String?
    /// Keep only events whose `sourceURLHost` is this (outbound navigations and returns carry it; arrivals and
    /// hosted-link events do not, so with it the links section is empty).
    public var sourceHost: String?
    /// Keep only the events of the hosted link with this slug: its page views (`alstats_link_hit`) and its
    /// arrivals (`al_nav_in` whose `targetURL` is the link's canonical URL on a recorded public URL), read from
    /// the link rollups; every other event is left out (docs/cli.md, "Filters").
    public var link: String?
    /// The time zone of the daily dates and of `YYYY-MM-DD` bounds.
    public var timeZone: ReportTimeZone
    /// Keep at most this many rows in each list (failure reasons, source hosts, referer apps, refs).
    public var top: Int?

    /// Creates a query; by default everything, in UTC, uncut.
    public init(
        since: Int64? = nil, until: Int64? = nil, ref: String? = nil, refererApp: String? = nil,
        sourceHost: String? = nil, link: String? = nil, timeZone: ReportTimeZone = .utc, top: Int? = nil
    ) {
        self.since = since
        self.until = until
        self.ref = ref
        self.refererApp = refererApp
        self.sourceHost = sourceHost
        self.link = link
        self.timeZone = timeZone
        self.top = top
    }
}

/// A time zone for daily dates: an IANA identifier (`Europe/Paris`, with its daylight-saving changes)
/// or a fixed offset (`+05:30`, `-08:00`, `Z`).
public struct ReportTimeZone: Sendable, Hashable {
    /// As given, for the report's `window.timezone`.
    public let identifier: String
    private let zone: TimeZone

    /// Coordinated Universal Time.
    public static let utc = ReportTimeZone(identifier: "UTC", zone: TimeZone(identifier: "UTC")!)

    private init(identifier: String, zone: TimeZone) {
        self.identifier = identifier
        self.zone = zone
    }

    /// The zone named `text`, or `nil` when it is neither an IANA identifier nor an offset `±HH:MM`.
    public init?(_ text: String) {
        if text == "UTC" || text == "Z" {
            self = .utc
            return
        }
        let bytes = Array(text.utf8)
        if bytes.count == 6, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
            bytes[3] == UInt8(ascii: ":"),
            let hours = Int(text.dropFirst().prefix(2)), let minutes = Int(text.suffix(2)), hours <= 18, minutes < 60,
            minutes % 15 == 0
        {
            let seconds = (hours * 3_600 + minutes * 60) * (bytes[0] == UInt8(ascii: "-") ? -1 : 1)
            guard let zone = TimeZone(secondsFromGMT: seconds) else { return nil }
            self.init(identifier: text, zone: zone)
            return
        }
        // IANA names are ASCII letters, digits, `/`, `_`, `-` and `+`; anything else (a NUL, which Foundation reads as
        // the end of the name, and gave another zone than the text) is no name.
        guard !text.isEmpty, text.utf8.count <= 64,
            text.utf8.allSatisfy({ byte in
                byte.isASCIIAlphanumeric || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+")
            }),
            let zone = TimeZone(identifier: text)
        else { return nil }
        self.init(identifier: text, zone: zone)
    }

    /// The offset from UTC, in ms, at the instant `milliseconds`.
    public func offset(at milliseconds: Int64) -> Int64 {
        Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(milliseconds) / 1_000))) * 1_000
    }

    /// The local date `YYYY-MM-DD` of the instant `milliseconds`, taken within ``EventTime/supportedRange`` (a
    /// store written before the range was enforced may hold a time past it: it is dated at the range's edge).
    public func date(of milliseconds: Int64) -> String {
        let range = EventTime.supportedRange
        let instant = min(max(milliseconds, range.lowerBound), range.upperBound)
        let local = instant + offset(at: instant)
        let days = local >= 0 ? local / 86_400_000 : -((-local + 86_399_999) / 86_400_000)
        let (year, month, day) = EventTime.civil(days: days)
        return String(format: "%04lld-%02lld-%02lld", year, month, day)
    }

    /// The instant of an RFC 3339 timestamp, or of local midnight of a `YYYY-MM-DD` date in this zone;
    /// `nil` when `text` is neither.
    public func milliseconds(of text: String) -> Int64? {
        if let days = EventTime.days(date: text) {
            let midnightUTC = days * 86_400_000
            // The offset at local midnight: try the offset at UTC midnight, then correct once for a change.
            var guess = midnightUTC - offset(at: midnightUTC)
            guess = midnightUTC - offset(at: guess)
            return guess
        }
        return EventTime.milliseconds(rfc3339: text)
    }
}

import MeasurementEvents

/// One group of `link_rollup` (Migrations/0009_create_link_rollups.sql): a 15-minute UTC bucket, a hit of a
/// hosted link page or an App Link arrival at a link's canonical URL, and the funnel's dimensions.
///
/// The rules are those of the view `link_event` (the same migration), which the rebuild reads: a test
/// checks that both roll up a workload alike.
package struct LinkRollupKey: Hashable {
    /// The name of a hit event (`LinkHitRequest.eventName` in HostedLinks).
    package static let hitName = "alstats_link_hit"

    package var bucket: Int64
    package var name: String
    package var slug: String
    package var origin: String?
    package var ref: String?
    package var refererAppName: String?
    package var status: Int64?
    package var crawler: Int64?

    /// Equal when every dimension has the same bytes, as ``RollupKey``'s.
    package static func == (lhs: LinkRollupKey, rhs: LinkRollupKey) -> Bool {
        lhs.bucket == rhs.bucket && lhs.status == rhs.status && lhs.crawler == rhs.crawler
            && lhs.name.hasSameBytes(as: rhs.name) && lhs.slug.hasSameBytes(as: rhs.slug)
            && lhs.origin.hasSameBytes(as: rhs.origin) && lhs.ref.hasSameBytes(as: rhs.ref)
            && lhs.refererAppName.hasSameBytes(as: rhs.refererAppName)
    }

    /// Hashes what ``==`` compares, text by its bytes.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(bucket)
        hasher.combine(status)
        hasher.combine(crawler)
        name.hashBytes(into: &hasher)
        slug.hashBytes(into: &hasher)
        origin.hashBytes(into: &hasher)
        ref.hashBytes(into: &hasher)
        refererAppName.hashBytes(into: &hasher)
    }

    /// The group of `event`, or `nil` when it is neither a hit with a `slug` nor an arrival at a link URL.
    package init?(_ event: MeasurementEvent) {
        let fields = event.fields
        switch event.name {
        case LinkRollupKey.hitName:
            guard let slug = fields["slug"] else { return nil }
            self.slug = slug
            status = fields["status"].flatMap(LinkRollupKey.status)
            crawler = fields["crawler"] == "1" ? 1 : 0
        case EventName.navIn:
            guard let target = fields[FieldName.targetURL], let link = LinkRollupKey.linkURL(target) else {
                return nil
            }
            slug = link.slug
            origin = link.origin
        default:
            return nil
        }
        bucket = RollupKey.start(of: event.timestamp, size: RollupKey.bucketMilliseconds)
        name = event.name
        ref = fields[FieldName.ref]
        refererAppName = fields[FieldName.refererAppName]
    }

    /// The link group of `event` and its visitor row (``LinkVisitorKey``), or `nil` when it is neither a hit of a
    /// hosted link nor an arrival at a link URL: the one classification of every write path (per event, encoded
    /// rows, packed slices, PostgreSQL). Other names are refused before the fields are read.
    package static func group(of event: MeasurementEvent) -> (key: LinkRollupKey, visitor: LinkVisitorKey?)? {
        guard event.name == hitName || event.name == EventName.navIn, let key = LinkRollupKey(event) else {
            return nil
        }
        return (key, LinkVisitorKey(event, key: key))
    }

    /// A `status` of 1 to 9 ASCII digits as a number, else `nil`.
    package static func status(_ text: String) -> Int64? {
        let digits = text.utf8
        guard (1...9).contains(digits.count), digits.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int64(text)
    }

    /// The origin (`scheme://authority`, as written) and slug of a canonical link URL `<origin>/l/<slug>`,
    /// alone or followed by `?` or `#`; `nil` for any other text.
    ///
    /// ```swift
    /// LinkRollupKey.linkURL("https://go.example.com/l/invite?referral=42")   // ("https://go.example.com", "invite")
    /// ```
    package static func linkURL(_ text: String) -> (origin: String, slug: String)? {
        var text = text
        return text.withUTF8(linkURL)
    }

    /// Whether `bytes` (a `targetURL` read in place) are a canonical link URL: an arrival there is a link's.
    package static func isLinkURL(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { linkURL(bytes) != nil }

    /// ``linkURL(_:)`` on the text's bytes, read in place: it runs for every arrival an ingest or a collector
    /// stores (three arrays made per call were 2% of the PostgreSQL writers' CPU).
    private static func linkURL(_ bytes: UnsafeBufferPointer<UInt8>) -> (origin: String, slug: String)? {
        let count = bytes.count
        var separator = 0
        while separator + 3 <= count,
            bytes[separator] != UInt8(ascii: ":") || bytes[separator + 1] != UInt8(ascii: "/")
                || bytes[separator + 2] != UInt8(ascii: "/")
        {
            separator += 1
        }
        guard separator + 3 <= count, separator > 0, bytes[..<separator].allSatisfy(isSchemeByte) else { return nil }
        // The authority runs to the first `/`, and holds no `?` or `#`.
        let rest = separator + 3
        var slash = rest
        while slash < count, bytes[slash] != UInt8(ascii: "/") {
            if bytes[slash] == UInt8(ascii: "?") || bytes[slash] == UInt8(ascii: "#") { return nil }
            slash += 1
        }
        guard slash > rest, slash + 3 <= count, bytes[slash + 1] == UInt8(ascii: "l"),
            bytes[slash + 2] == UInt8(ascii: "/")
        else { return nil }
        let start = slash + 3
        var end = start
        while end < count, bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") { end += 1 }
        let slug = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard (1...64).contains(slug.count), slug.allSatisfy(isSlugByte) else { return nil }
        return (
            String(decoding: UnsafeBufferPointer(rebasing: bytes[..<slash]), as: UTF8.self),
            String(decoding: slug, as: UTF8.self)
        )
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    private static func isSlugByte(_ byte: UInt8) -> Bool {
        byte.isASCIIAlphanumeric || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// This group with its bucket widened to the UTC day: the key of `link_rollup_day`.
    package var day: LinkRollupKey {
        var key = self
        key.bucket = RollupKey.start(of: bucket, size: RollupKey.dayMilliseconds)
        return key
    }
}

/// One row of `link_visitor_day`: a person's page view of a link on a UTC day.
package struct LinkVisitorKey: Hashable {
    package var day: Int64
    package var slug: String
    package var ref: String?
    package var refererAppName: String?
    package var visitor: String

    /// Equal when every field has the same bytes, as ``RollupKey``'s.
    package static func == (lhs: LinkVisitorKey, rhs: LinkVisitorKey) -> Bool {
        lhs.day == rhs.day && lhs.slug.hasSameBytes(as: rhs.slug) && lhs.ref.hasSameBytes(as: rhs.ref)
            && lhs.refererAppName.hasSameBytes(as: rhs.refererAppName) && lhs.visitor.hasSameBytes(as: rhs.visitor)
    }

    /// Hashes what ``==`` compares, text by its bytes.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(day)
        slug.hashBytes(into: &hasher)
        ref.hashBytes(into: &hasher)
        refererAppName.hashBytes(into: &hasher)
        visitor.hashBytes(into: &hasher)
    }

    /// The row of a hit `event` of `key`, or `nil` unless it is a person's page view (status 200, crawler 0)
    /// with a `visitor`.
    package init?(_ event: MeasurementEvent, key: LinkRollupKey) {
        guard key.name == LinkRollupKey.hitName, key.status == 200, key.crawler == 0,
            let visitor = event.fields["visitor"]
        else { return nil }
        day = key.day.bucket
        slug = key.slug
        ref = key.ref
        refererAppName = key.refererAppName
        self.visitor = visitor
    }
}

/// One group of `link_visitor_count`: distinct visitors of a link on a UTC day, in one scope.
package struct LinkVisitorCountKey: Hashable {
    /// Which of the report's filters the count answers.
    package enum Scope: String, CaseIterable {
        /// No filter: ref and referer app not grouped.
        case all
        /// `--ref`: per ref.
        case ref
        /// `--referer-app`: per referer app.
        case refererApp = "referer_app"
        /// Both filters: per ref and referer app.
        case both
    }

    package var day: Int64
    package var slug: String
    package var scope: Scope
    package var ref: String?
    package var refererAppName: String?

    /// Equal when every field has the same bytes, as ``RollupKey``'s.
    package static func == (lhs: LinkVisitorCountKey, rhs: LinkVisitorCountKey) -> Bool {
        lhs.day == rhs.day && lhs.scope == rhs.scope && lhs.slug.hasSameBytes(as: rhs.slug)
            && lhs.ref.hasSameBytes(as: rhs.ref) && lhs.refererAppName.hasSameBytes(as: rhs.refererAppName)
    }

    /// Hashes what ``==`` compares, text by its bytes.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(day)
        hasher.combine(scope)
        slug.hashBytes(into: &hasher)
        ref.hashBytes(into: &hasher)
        refererAppName.hashBytes(into: &hasher)
    }

    /// The group of `visitor` in `scope`: its ref and referer app kept where the scope groups by them.
    package init(_ visitor: LinkVisitorKey, scope: Scope) {
        day = visitor.day
        slug = visitor.slug
        self.scope = scope
        ref = scope == .ref || scope == .both ? visitor.ref : nil
        refererAppName = scope == .refererApp || scope == .both ? visitor.refererAppName : nil
    }

    /// Whether a visitor's row with `ref` and `refererAppName` (of this day and slug) belongs to this group.
    package func matches(ref: String?, refererAppName: String?) -> Bool {
        switch scope {
        case .all: return true
        case .ref: return ref.hasSameBytes(as: self.ref)
        case .refererApp: return refererAppName.hasSameBytes(as: self.refererAppName)
        case .both: return ref.hasSameBytes(as: self.ref) && refererAppName.hasSameBytes(as: self.refererAppName)
        }
    }
}

/// The grouped counts a report is built from: what `Queries/report_groups.sql` and
/// `Queries/report_daily.sql` return, and the completeness table.
public struct ReportRows: Sendable, Hashable {
    /// Events per combination of the report's dimensions.
    public var groups: [Group]
    /// Events per 15-minute UTC bucket, name, type and success.
    public var buckets: [Bucket]
    /// Loss counts by kind (`dropped`, `rejected`) and reason.
    public var completeness: [String: [String: Int]]
    /// The hosted links funnel per slug: what `Queries/report_links.sql` returns.
    public var links: [Link]
    /// The install path per slug: what `Queries/report_installs.sql` returns (docs/install.md).
    public var linkInstalls: [LinkInstalls]
    /// The apps' first opens: what `Queries/report_first_opens.sql` returns.
    public var firstOpens: FirstOpens
    /// From when raw events exist, when the store was pruned (``EventRetention/rawEventsSince()``): the rows were
    /// then read for the query's window aligned to buckets before it (``ReportQuery/alignedToBuckets(before:)``).
    /// `nil` for a store never pruned.
    public var rawEventsSince: Int64? = nil

    /// Creates rows.
    public init(
        groups: [Group], buckets: [Bucket], completeness: [String: [String: Int]] = [:], links: [Link] = [],
        linkInstalls: [LinkInstalls] = [], firstOpens: FirstOpens = FirstOpens()
    ) {
        self.groups = groups
        self.buckets = buckets
        self.completeness = completeness
        self.links = links
        self.linkInstalls = linkInstalls
        self.firstOpens = firstOpens
    }

    /// A count of events sharing these values (`nil`: the event lacked the field).
    public struct Group: Sendable, Hashable {
        public var name: String
        public var ref: String?
        public var refererAppName: String?
        public var type: String?
        /// 1, 0, or `nil` when the event had no `success` field of "1" or "0".
        public var success: Int?
        public var sourceURLHost: String?
        public var error: String?
        public var count: Int

        /// Creates a group.
        public init(
            name: String, ref: String? = nil, refererAppName: String? = nil, type: String? = nil,
            success: Int? = nil, sourceURLHost: String? = nil, error: String? = nil, count: Int
        ) {
            self.name = name
            self.ref = ref
            self.refererAppName = refererAppName
            self.type = type
            self.success = success
            self.sourceURLHost = sourceURLHost
            self.error = error
            self.count = count
        }
    }

    /// A count of events in one 15-minute UTC bucket.
    public struct Bucket: Sendable, Hashable {
        /// The bucket's start, ms since the Unix epoch (a multiple of 900,000).
        public var start: Int64
        public var name: String
        /// `app`, `web`, `fail` or `nil`.
        public var type: String?
        public var success: Int?
        public var count: Int

        /// Creates a bucket.
        public init(start: Int64, name: String, type: String? = nil, success: Int?, count: Int) {
            self.start = start
            self.name = name
            self.type = type
            self.success = success
            self.count = count
        }
    }
}

extension ReportRows {
    /// The funnel of one hosted link (docs/hosted-links.md, "The funnel in the report"): page views, the people and
    /// crawlers behind them, and the App Link arrivals that followed.
    public struct Link: Sendable, Hashable {
        /// The requested slug.
        public var slug: String
        /// `alstats_link_hit` events with status 200 and crawler 0: people who got the page.
        public var hits: Int
        /// Distinct `visitor` values of those hits per UTC day, summed over the days.
        public var visitors: Int
        /// `alstats_link_hit` events with crawler 1 (link previewers, crawlers, every `HEAD`).
        public var crawlerFetches: Int
        /// `alstats_link_hit` events with crawler 0 and a status other than 200 (an unknown slug: 404).
        public var notFound: Int
        /// `al_nav_in` events whose `targetURL` is the link's canonical URL on a recorded public URL.
        public var arrivals: Int

        /// The link's install path (docs/install.md): taps on its store buttons by people, by store.
        public var storeTaps = PlatformCounts()
        /// Installs: the claims of its clicks by installed apps, by platform.
        public var installs = PlatformCounts()
        /// `al_nav_in` events with `deferred` `1` at its canonical URL: apps opened on it after their install (also
        /// counted in ``arrivals``).
        public var deferredOpens = 0
        /// The middle delay from click to install, in ms (the lower of the two middle ones for an even count); `nil`
        /// without installs.
        public var medianDelayMilliseconds: Int64?

        /// `arrivals / hits`, `nil` without hits.
        public var arrivalRate: Double? { hits == 0 ? nil : Double(arrivals) / Double(hits) }

        /// `installs / store taps`, `nil` without store taps.
        public var installRate: Double? {
            storeTaps.total == 0 ? nil : Double(installs.total) / Double(storeTaps.total)
        }

        /// The link with the install path of `installs`.
        public func adding(_ installs: LinkInstalls) -> Link {
            var link = self
            link.storeTaps = installs.storeTaps
            link.installs = installs.installs
            link.deferredOpens = installs.deferredOpens
            link.medianDelayMilliseconds = installs.medianDelayMilliseconds
            return link
        }

        /// Creates a link's funnel.
        public init(slug: String, hits: Int, visitors: Int, crawlerFetches: Int, notFound: Int, arrivals: Int) {
            self.slug = slug
            self.hits = hits
            self.visitors = visitors
            self.crawlerFetches = crawlerFetches
            self.notFound = notFound
            self.arrivals = arrivals
        }
    }
}

extension ReportRows {
    /// Counts by platform: the App Store or Google Play, an iOS or an Android app.
    public struct PlatformCounts: Sendable, Hashable {
        public var ios: Int
        public var android: Int

        /// Both together.
        public var total: Int { ios + android }

        /// Creates counts.
        public init(ios: Int = 0, android: Int = 0) {
            self.ios = ios
            self.android = android
        }
    }

    /// The install path of one hosted link (docs/install.md): one row of `Queries/report_installs.sql`.
    public struct LinkInstalls: Sendable, Hashable {
        /// The link's slug.
        public var slug: String
        /// `alstats_link_store` events of people (crawler other than "1"), by store.
        public var storeTaps: PlatformCounts
        /// `alstats_link_install` events, by platform.
        public var installs: PlatformCounts
        /// `al_nav_in` events with `deferred` `1` at the link's canonical URL on a recorded public URL.
        public var deferredOpens: Int
        /// The middle `delay_ms` of the installs, `nil` without installs.
        public var medianDelayMilliseconds: Int64?

        /// Creates a link's install path.
        public init(
            slug: String, storeTaps: PlatformCounts = PlatformCounts(), installs: PlatformCounts = PlatformCounts(),
            deferredOpens: Int = 0, medianDelayMilliseconds: Int64? = nil
        ) {
            self.slug = slug
            self.storeTaps = storeTaps
            self.installs = installs
            self.deferredOpens = deferredOpens
            self.medianDelayMilliseconds = medianDelayMilliseconds
        }
    }

    /// The apps' first opens after their install (`alstats_first_open`): one row of `Queries/report_first_opens.sql`.
    public struct FirstOpens: Sendable, Hashable {
        /// Every first open.
        public var firstOpens: Int
        /// Those whose app opened on a deferred link (`attributed` `1`).
        public var attributed: Int

        /// The others: installs that came with no click of a hosted link.
        public var organic: Int { firstOpens - attributed }

        /// Creates counts.
        public init(firstOpens: Int = 0, attributed: Int = 0) {
            self.firstOpens = firstOpens
            self.attributed = attributed
        }
    }
}

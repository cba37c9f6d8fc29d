import EventStoreInterface
import Foundation
import MeasurementEvents

extension Report {
    /// A slice whose success fell against the previous period (docs/cli.md, "Alerts").
    public struct Alert: Sendable, Hashable {
        /// What the slice is cut by.
        public enum Dimension: String, Sendable, Hashable, CaseIterable {
            /// Every outbound navigation of the report.
            case all
            /// The outbound navigations of one `sourceURLHost`.
            case sourceHost = "source_host"
            /// The outbound navigations of one `ref`.
            case ref
            /// One hosted link's funnel.
            case link
        }

        /// What is measured: `nav_out_success_rate` (succeeded / attempts of `al_nav_out`) for `all`,
        /// `source_host` and `ref`; `open_rate` (arrivals / hits from people) for `link`.
        public enum Measure: String, Sendable, Hashable {
            case navOutSuccessRate = "nav_out_success_rate"
            case openRate = "open_rate"
        }

        /// Attempts and successes in one period.
        public struct Period: Sendable, Hashable {
            public var attempts: Int
            public var succeeded: Int
            /// `succeeded / attempts` (never `nil`: an alert needs at least 50 attempts).
            public var rate: Double { attempts == 0 ? 0 : Double(succeeded) / Double(attempts) }

            public init(attempts: Int, succeeded: Int) {
                self.attempts = attempts
                self.succeeded = succeeded
            }
        }

        /// The failure reason whose count grew the most in the slice.
        public struct TopFailure: Sendable, Hashable {
            /// `error` of the failed navigations, `nil` for those without one.
            public var error: String?
            public var now: Int
            public var before: Int

            public init(error: String?, now: Int, before: Int) {
                self.error = error
                self.now = now
                self.before = before
            }
        }

        public var dimension: Dimension
        /// The slice's value (the host, the ref, the slug); `nil` for `all`, and for the events without the field.
        public var value: String?
        public var measure: Measure
        public var now: Period
        public var before: Period
        /// `nil` when no failure reason grew, and always for `link` (a link's funnel has no failure reasons).
        public var topFailure: TopFailure?
        /// The alerts on `all` and `ref` this one explains (docs/cli.md, "One alert per cause"): on a `source_host`
        /// alert, the slices that no longer meet the rule without the events of the alerted source hosts, and that
        /// this host's removal alone clears (else it is the first alerted host they have events of). Empty on every
        /// other alert, and on the explained ones themselves.
        public var explains: [Report.Alert] = []

        /// Creates an alert; ``AlertRule/alerts(now:before:)`` makes them from a report's rows.
        public init(
            dimension: Dimension, value: String?, measure: Measure, now: Period, before: Period,
            topFailure: TopFailure? = nil, explains: [Report.Alert] = []
        ) {
            self.dimension = dimension
            self.value = value
            self.measure = measure
            self.now = now
            self.before = before
            self.topFailure = topFailure
            self.explains = explains
        }

        /// How much the rate fell, as a fraction (0.1 is 10 percentage points).
        public var fall: Double { before.rate - now.rate }
        /// What orders the alerts: the fall times the attempts now, the users it costs.
        public var cost: Double { fall * Double(now.attempts) }
    }
}

/// The rule of docs/cli.md, "Alerts": a slice is listed when its rate fell by at least 10 percentage points,
/// both periods have at least 50 attempts, and a two-sided two-proportion z-test (pooled) gives p < 0.01.
/// Slices: `all`, each `source_host` and each `ref` of the outbound navigations (`nav_out_success_rate`), each
/// hosted link (`open_rate`: arrivals over hits from people, arrivals counted at most up to the hits). Ordered
/// by the fall times the attempts now, most first; ties by dimension (all, source_host, ref, link), then value.
/// The alerts on `all` and `ref` that the alerted source hosts explain are then folded under them
/// (``Report/Alert/explains``), so that one broken host is one alert: its cause.
public struct AlertRule: Sendable, Hashable {
    /// The smallest fall, in percentage points.
    public var minimumFallPoints: Int
    /// The fewest attempts in each period.
    public var minimumAttempts: Int
    /// The p-value the test must be below.
    public var significance: Double

    /// The rule of the spec: 10 points, 50 attempts, p < 0.01.
    public init(minimumFallPoints: Int = 10, minimumAttempts: Int = 50, significance: Double = 0.01) {
        self.minimumFallPoints = minimumFallPoints
        self.minimumAttempts = minimumAttempts
        self.significance = significance
    }

    /// Whether a slice with `now` and `before` is an alert.
    public func flags(now: Report.Alert.Period, before: Report.Alert.Period) -> Bool {
        guard now.attempts >= minimumAttempts, before.attempts >= minimumAttempts else { return false }
        // before.rate - now.rate >= points / 100, in integers: no rounding at the boundary.
        let fall = 100 * (before.succeeded * now.attempts - now.succeeded * before.attempts)
        guard fall >= minimumFallPoints * before.attempts * now.attempts else { return false }
        return Self.pValue(now: now, before: before) < significance
    }

    /// The two-sided p-value of the pooled two-proportion z-test between the periods.
    public static func pValue(now: Report.Alert.Period, before: Report.Alert.Period) -> Double {
        let n1 = Double(before.attempts)
        let n2 = Double(now.attempts)
        guard n1 > 0, n2 > 0 else { return 1 }
        let pooled = Double(before.succeeded + now.succeeded) / (n1 + n2)
        let error = (pooled * (1 - pooled) * (1 / n1 + 1 / n2)).squareRoot()
        guard error > 0 else { return 1 }
        let z = (before.rate - now.rate) / error
        // P(|Z| >= |z|) = 2 (1 - Φ(|z|)) = erfc(|z| / √2)
        return erfc(abs(z) / 2.0.squareRoot())
    }

    /// The alerts between the rows of the report's window (`now`) and of the previous window (`before`): the causes,
    /// each with the alerts it explains (``folded(_:now:before:)``).
    public func alerts(now: ReportRows, before: ReportRows) -> [Report.Alert] {
        let current = Slices(now)
        let previous = Slices(before)
        var alerts: [Report.Alert] = []
        for (key, counts) in current.navigation {
            guard let old = previous.navigation[key] else { continue }
            let nowPeriod = Report.Alert.Period(attempts: counts.attempts, succeeded: counts.succeeded)
            let beforePeriod = Report.Alert.Period(attempts: old.attempts, succeeded: old.succeeded)
            guard flags(now: nowPeriod, before: beforePeriod) else { continue }
            alerts.append(
                Report.Alert(
                    dimension: key.dimension, value: key.value, measure: .navOutSuccessRate, now: nowPeriod,
                    before: beforePeriod,
                    topFailure: Self.topFailure(
                        now: current.failures[key] ?? [:], before: previous.failures[key] ?? [:])))
        }
        let beforeLinks = Dictionary(before.links.map { ($0.slug, $0) }, uniquingKeysWith: { first, _ in first })
        for link in now.links {
            guard let old = beforeLinks[link.slug] else { continue }
            let nowPeriod = Report.Alert.Period(attempts: link.hits, succeeded: min(link.arrivals, link.hits))
            let beforePeriod = Report.Alert.Period(attempts: old.hits, succeeded: min(old.arrivals, old.hits))
            guard flags(now: nowPeriod, before: beforePeriod) else { continue }
            alerts.append(
                Report.Alert(
                    dimension: .link, value: link.slug, measure: .openRate, now: nowPeriod, before: beforePeriod,
                    topFailure: nil))
        }
        return folded(Self.ordered(alerts), now: current, before: previous)
    }

    /// `alerts` by cost descending, then dimension, then value (`nil` first: `all` has none).
    static func ordered(_ alerts: [Report.Alert]) -> [Report.Alert] {
        let dimensions = Report.Alert.Dimension.allCases
        return alerts.sorted { left, right in
            if left.cost != right.cost { return left.cost > right.cost }
            let ld = dimensions.firstIndex(of: left.dimension) ?? 0
            let rd = dimensions.firstIndex(of: right.dimension) ?? 0
            if ld != rd { return ld < rd }
            switch (left.value, right.value) {
            case (let a?, let b?): return a < b
            case (nil, .some): return true
            default: return false
            }
        }
    }

    /// The error whose failed count grew the most from `before` to `now` (ties: by error, `nil` last); `nil`
    /// when none grew.
    static func topFailure(now: [String?: Int], before: [String?: Int]) -> Report.Alert.TopFailure? {
        var best: Report.Alert.TopFailure?
        for (error, count) in now {
            let old = before[error, default: 0]
            guard count > old else { continue }
            let candidate = Report.Alert.TopFailure(error: error, now: count, before: old)
            guard let current = best else {
                best = candidate
                continue
            }
            let growth = count - old
            let bestGrowth = current.now - current.before
            if growth > bestGrowth || (growth == bestGrowth && Self.precedes(error, current.error)) {
                best = candidate
            }
        }
        return best
    }

    private static func precedes(_ left: String?, _ right: String?) -> Bool {
        switch (left, right) {
        case (let a?, let b?): return a < b
        case (.some, nil): return true
        default: return false
        }
    }

    /// The outbound navigations of a period, per slice, and their failures per error; for `all` and each `ref`, also
    /// per source host, so that a slice can be measured without the events of some hosts.
    struct Slices {
        struct Key: Hashable {
            var dimension: Report.Alert.Dimension
            var value: String?
        }

        var navigation: [Key: Counts] = [:]
        var failures: [Key: [String?: Int]] = [:]
        /// The navigations of the `all` and `ref` slices, per `sourceURLHost`.
        var byHost: [Key: [String?: Counts]] = [:]

        init(_ rows: ReportRows) {
            for group in rows.groups where group.name == EventName.navOut {
                let succeeded = group.success == 1
                for key in [
                    Key(dimension: .all, value: nil), Key(dimension: .sourceHost, value: group.sourceURLHost),
                    Key(dimension: .ref, value: group.ref),
                ] {
                    navigation[key, default: Counts()].add(group.count, succeeded: succeeded)
                    if !succeeded { failures[key, default: [:]][group.error, default: 0] += group.count }
                    if key.dimension != .sourceHost {
                        byHost[key, default: [:]][group.sourceURLHost, default: Counts()].add(
                            group.count, succeeded: succeeded)
                    }
                }
            }
        }

        /// The slice `key` without the navigations of `hosts` (`all` and `ref` slices only).
        func period(_ key: Key, without hosts: [String?]) -> Report.Alert.Period {
            var counts = navigation[key] ?? Counts()
            let perHost = byHost[key] ?? [:]
            for host in Set(hosts) {
                guard let removed = perHost[host] else { continue }
                counts.attempts -= removed.attempts
                counts.succeeded -= removed.succeeded
            }
            return Report.Alert.Period(attempts: counts.attempts, succeeded: counts.succeeded)
        }

        /// The navigations of the slice `key` from `host`.
        func attempts(_ key: Key, from host: String?) -> Int {
            byHost[key]?[host]?.attempts ?? 0
        }
    }
}

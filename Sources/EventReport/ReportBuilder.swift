import EventStoreInterface
import MeasurementEvents

/// Computes a ``Report`` from grouped counts, by the definitions of docs/cli.md.
///
/// - Success is `success == "1"`; a rate is succeeded / attempts, `nil` without attempts.
/// - Arrivals are `al_nav_in`, returns `al_ref_back_out`, grouped by `refererAppName` or `ref` (`nil`
///   when absent); a referer app or ref seen only in returns or outbound events is listed with 0 arrivals.
/// - Lists are sorted by their leading count, most first, then by name, `nil` last among equal counts,
///   and cut to `top` when the query sets it.
/// - `other` counts every name outside the three App Links events; App Links the library rejected
///   (``EventName/linkRejected``) are also counted in completeness under `applink_rejected:<error>`.
public struct ReportBuilder: Sendable {
    /// Creates a builder.
    public init() {}

    /// The report of `rows` for `query`.
    public func report(from rows: ReportRows, query: ReportQuery) -> Report {
        var tally = Tally()
        for group in rows.groups { tally.add(group) }
        let window = Self.window(of: query, rawEventsSince: rows.rawEventsSince)
        var report = Report(
            window: window,
            totals: Report.Totals(events: tally.events, byName: tally.byName),
            navigation: Report.Navigation(
                attempts: tally.navOut.attempts, succeeded: tally.navOut.succeeded,
                successRate: rate(tally.navOut.succeeded, tally.navOut.attempts), byType: tally.byType,
                failureReasons: cut(
                    sorted(
                        tally.failures.map { Report.FailureReason(error: $0.key, count: $0.value) }, \.count, \.error),
                    query.top),
                sourceHosts: cut(
                    sorted(
                        tally.hosts.map {
                            Report.SourceHost(host: $0.key, attempts: $0.value.attempts, succeeded: $0.value.succeeded)
                        },
                        \.attempts, \.host),
                    query.top)),
            backNavigation: Report.BackNavigation(
                attempts: tally.back.attempts, succeeded: tally.back.succeeded,
                successRate: rate(tally.back.succeeded, tally.back.attempts)),
            refererApps: cut(refererApps(tally), query.top),
            refCategories: cut(refCategories(tally), query.top),
            daily: daily(rows.buckets, timeZone: query.timeZone),
            completeness: completeness(rows.completeness, linkRejections: tally.linkRejections))
        report.completeness.notFilteredBy = Self.fieldFilters(of: query)
        report.links = cut(links(rows.links, installs: rows.linkInstalls), query.top)
        report.firstOpens = rows.firstOpens
        return report
    }

    // MARK: Sections

    /// The window the rows of `query` cover: its edges before `rawEventsSince` at their buckets' starts, as the
    /// store read them (``ReportQuery/alignedToBuckets(before:)``), with what was asked when an edge moved.
    static func window(of query: ReportQuery, rawEventsSince: Int64?) -> Report.Window {
        let read = query.alignedToBuckets(before: rawEventsSince)
        var window = Report.Window(since: read.since, until: read.until, timeZone: query.timeZone.identifier)
        window.rawEventsSince = rawEventsSince
        if read.since != query.since { window.requestedSince = query.since }
        if read.until != query.until { window.requestedUntil = query.until }
        return window
    }

    private func refererApps(_ tally: Tally) -> [Report.RefererApp] {
        let totalArrivals = tally.navIn
        let names = Set(tally.arrivalsByApp.keys).union(tally.returnsByApp.keys).union(tally.outboundApps)
        let apps = names.map { name -> Report.RefererApp in
            let arrivals = tally.arrivalsByApp[name, default: 0]
            let returns = tally.returnsByApp[name, default: 0]
            return Report.RefererApp(
                name: name, arrivals: arrivals, share: rate(arrivals, totalArrivals), returns: returns,
                returnRate: rate(returns, arrivals))
        }
        return sorted(apps, \.arrivals, \.name)
    }

    private func refCategories(_ tally: Tally) -> [Report.RefCategory] {
        let refs = Set(tally.arrivalsByRef.keys).union(tally.outByRef.keys).union(tally.returnsByRef.keys)
        let categories = refs.map { ref -> Report.RefCategory in
            let out = tally.outByRef[ref, default: Counts()]
            return Report.RefCategory(
                ref: ref, arrivals: tally.arrivalsByRef[ref, default: 0], navOutAttempts: out.attempts,
                navOutSucceeded: out.succeeded, navOutSuccessRate: rate(out.succeeded, out.attempts),
                returns: tally.returnsByRef[ref, default: 0])
        }
        return sorted(categories, \.arrivals, \.ref)
    }

    private func daily(_ buckets: [ReportRows.Bucket], timeZone: ReportTimeZone) -> [Report.Day] {
        var days: [String: (navIn: Int, navOut: Int, succeeded: Int, back: Int, any: Int, types: [String: Int])] = [:]
        var dateOfBucket: [Int64: String] = [:]
        for bucket in buckets {
            let date: String
            if let known = dateOfBucket[bucket.start] {
                date = known
            } else {
                date = timeZone.date(of: bucket.start)
                dateOfBucket[bucket.start] = date
            }
            var day = days[date, default: (0, 0, 0, 0, 0, Tally.emptyTypes)]
            day.any += bucket.count
            switch bucket.name {
            case EventName.navIn: day.navIn += bucket.count
            case EventName.navOut:
                day.navOut += bucket.count
                if bucket.success == 1 { day.succeeded += bucket.count }
                if let type = bucket.type, day.types[type] != nil { day.types[type, default: 0] += bucket.count }
            case EventName.refBackOut: day.back += bucket.count
            default: break
            }
            days[date] = day
        }
        return days.filter { $0.value.any > 0 }.sorted { $0.key < $1.key }.map { date, day in
            Report.Day(
                date: date, navIn: day.navIn, navOut: day.navOut, refBackOut: day.back,
                navOutSuccessRate: rate(day.succeeded, day.navOut), navOutSucceeded: day.succeeded,
                navOutByType: day.types)
        }
    }

    private func completeness(_ table: [String: [String: Int]], linkRejections: [String?: Int]) -> Report.Completeness {
        var byReason: [String: Int] = [:]
        var dropped = 0
        var rejected = 0
        var altered = 0
        for (kind, reasons) in table {
            for (reason, count) in reasons {
                byReason[reason, default: 0] += count
                switch kind {
                case "dropped": dropped += count
                case "altered": altered += count
                case "rejected": rejected += count
                default: break
                }
            }
        }
        for (error, count) in linkRejections {
            byReason["applink_rejected:\(error ?? "unknown")", default: 0] += count
            rejected += count
        }
        return Report.Completeness(dropped: dropped, rejected: rejected, altered: altered, byReason: byReason)
    }

    /// The field filters `query` sets, by their query parameter names, in the order of docs/cli.md.
    static func fieldFilters(of query: ReportQuery) -> [String] {
        [
            ("ref", query.ref), ("referer_app", query.refererApp), ("source_host", query.sourceHost),
            ("link", query.link),
        ]
        .filter { $0.1 != nil }.map(\.0)
    }

    // MARK: Helpers

    private func rate(_ part: Int, _ whole: Int) -> Double? {
        Report.rate(part, of: whole)
    }

    /// Sorted by `count` descending, then `name` ascending with `nil` last.
    private func sorted<Row>(_ rows: [Row], _ count: KeyPath<Row, Int>, _ name: KeyPath<Row, String?>) -> [Row] {
        rows.sorted { left, right in
            if left[keyPath: count] != right[keyPath: count] { return left[keyPath: count] > right[keyPath: count] }
            switch (left[keyPath: name], right[keyPath: name]) {
            case (let l?, let r?): return l < r
            case (.some, nil): return true
            default: return false
            }
        }
    }

    func cut<Row>(_ rows: [Row], _ top: Int?) -> [Row] {
        guard let top, top >= 0, rows.count > top else { return rows }
        return Array(rows.prefix(top))
    }
}

/// Attempts and successes.
struct Counts {
    var attempts = 0
    var succeeded = 0

    mutating func add(_ count: Int, succeeded success: Bool) {
        attempts += count
        if success { succeeded += count }
    }
}

/// Running sums over the groups, one pass.
struct Tally {
    var events = 0
    var byName: [String: Int] = [EventName.navIn: 0, EventName.navOut: 0, EventName.refBackOut: 0, "other": 0]
    var navIn = 0
    var navOut = Counts()
    var back = Counts()
    /// Zero for each of `app`, `web`, `fail`: the keys counted by type.
    static let emptyTypes = [
        NavigationType.app.rawValue: 0, NavigationType.web.rawValue: 0, NavigationType.fail.rawValue: 0,
    ]
    var byType: [String: Int] = Tally.emptyTypes
    var failures: [String?: Int] = [:]
    var hosts: [String?: Counts] = [:]
    var arrivalsByApp: [String?: Int] = [:]
    var returnsByApp: [String?: Int] = [:]
    var outboundApps: Set<String?> = []
    var arrivalsByRef: [String?: Int] = [:]
    var outByRef: [String?: Counts] = [:]
    var returnsByRef: [String?: Int] = [:]
    var linkRejections: [String?: Int] = [:]

    mutating func add(_ group: ReportRows.Group) {
        let count = group.count
        events += count
        let succeeded = group.success == 1
        switch group.name {
        case EventName.navIn:
            byName[EventName.navIn, default: 0] += count
            navIn += count
            arrivalsByApp[group.refererAppName, default: 0] += count
            arrivalsByRef[group.ref, default: 0] += count
        case EventName.navOut:
            byName[EventName.navOut, default: 0] += count
            navOut.add(count, succeeded: succeeded)
            if let type = group.type, byType[type] != nil { byType[type, default: 0] += count }
            if !succeeded { failures[group.error, default: 0] += count }
            hosts[group.sourceURLHost, default: Counts()].add(count, succeeded: succeeded)
            outByRef[group.ref, default: Counts()].add(count, succeeded: succeeded)
            if let app = group.refererAppName { outboundApps.insert(app) }
        case EventName.refBackOut:
            byName[EventName.refBackOut, default: 0] += count
            back.add(count, succeeded: succeeded)
            returnsByApp[group.refererAppName, default: 0] += count
            returnsByRef[group.ref, default: 0] += count
        default:
            byName["other", default: 0] += count
            if group.name == EventName.linkRejected { linkRejections[group.error, default: 0] += count }
        }
    }
}

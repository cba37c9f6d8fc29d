import Foundation
import MeasurementEvents

@testable import EventReport
@testable import EventStoreInterface

/// An independent computation of the report, straight from the events (no rollups, no SQL), by the
/// definitions of docs/cli.md: the reference the store-backed report is checked against.
enum ReportOracle {
    /// The events `query` keeps: the first of each id, in the window, with the filters' values; with a link, its
    /// page views (a hit whose `slug` field is it) and its arrivals at one of `publicURLs` (``LinkOracle``).
    static func kept(
        _ events: [MeasurementEvent], query: ReportQuery, publicURLs: [String] = [LinkOracle.publicURL]
    ) -> [MeasurementEvent] {
        var seen = Set<EventID>()
        return events.filter { event in
            guard seen.insert(event.id).inserted else { return false }
            if let since = query.since, event.timestamp < since { return false }
            if let until = query.until, event.timestamp >= until { return false }
            if let ref = query.ref, event.fields[FieldName.ref] != ref { return false }
            if let app = query.refererApp, event.fields[FieldName.refererAppName] != app { return false }
            if let host = query.sourceHost, event.fields[FieldName.sourceURLHost] != host { return false }
            if let link = query.link {
                switch event.name {
                case "alstats_link_hit": return event.fields["slug"] == link
                case EventName.navIn:
                    return event.fields[FieldName.targetURL].flatMap {
                        LinkOracle.arrivalSlug($0, publicURLs: publicURLs)
                    } == link
                default: return false
                }
            }
            return true
        }
    }

    static func report(_ events: [MeasurementEvent], query: ReportQuery) -> Report {
        let kept = kept(events, query: query)
        func named(_ name: String) -> [MeasurementEvent] { kept.filter { $0.name == name } }
        func ok(_ event: MeasurementEvent) -> Bool { event.fields[FieldName.success] == "1" }
        func rate(_ part: Int, _ whole: Int) -> Double? { whole == 0 ? nil : Double(part) / Double(whole) }
        func order<T>(_ rows: [T], _ count: (T) -> Int, _ name: (T) -> String?) -> [T] {
            let sorted = rows.sorted {
                count($0) != count($1)
                    ? count($0) > count($1)
                    : (name($0) ?? "\u{10FFFF}\u{10FFFF}") < (name($1) ?? "\u{10FFFF}\u{10FFFF}")
            }
            guard let top = query.top else { return sorted }
            return Array(sorted.prefix(top))
        }

        let navIn = named(EventName.navIn)
        let navOut = named(EventName.navOut)
        let back = named(EventName.refBackOut)
        let three = Set(EventName.appLinks)

        let failures = Dictionary(grouping: navOut.filter { !ok($0) }, by: { $0.fields[FieldName.error] })
        let hosts = Dictionary(grouping: navOut, by: { $0.fields[FieldName.sourceURLHost] })
        let apps = Set(
            navIn.map { $0.fields[FieldName.refererAppName] } + back.map { $0.fields[FieldName.refererAppName] }
                + navOut.compactMap { $0.fields[FieldName.refererAppName] }.map(Optional.some))
        let refs = Set((navIn + navOut + back).map { $0.fields[FieldName.ref] })
        let rejected = Dictionary(grouping: named(EventName.linkRejected), by: { $0.fields[FieldName.error] })

        var days: [String: [MeasurementEvent]] = [:]
        for event in kept { days[query.timeZone.date(of: event.timestamp), default: []].append(event) }

        return Report(
            window: Report.Window(since: query.since, until: query.until, timeZone: query.timeZone.identifier),
            totals: Report.Totals(
                events: kept.count,
                byName: [
                    EventName.navIn: navIn.count, EventName.navOut: navOut.count, EventName.refBackOut: back.count,
                    "other": kept.filter { !three.contains($0.name) }.count,
                ]),
            navigation: Report.Navigation(
                attempts: navOut.count, succeeded: navOut.filter(ok).count,
                successRate: rate(navOut.filter(ok).count, navOut.count),
                byType: Dictionary(
                    uniqueKeysWithValues: ["app", "web", "fail"].map { type in
                        (type, navOut.filter { $0.fields[FieldName.type] == type }.count)
                    }),
                failureReasons: order(
                    failures.map { Report.FailureReason(error: $0.key, count: $0.value.count) }, \.count, \.error),
                sourceHosts: order(
                    hosts.map {
                        Report.SourceHost(host: $0.key, attempts: $0.value.count, succeeded: $0.value.filter(ok).count)
                    },
                    \.attempts, \.host)),
            backNavigation: Report.BackNavigation(
                attempts: back.count, succeeded: back.filter(ok).count,
                successRate: rate(back.filter(ok).count, back.count)),
            refererApps: order(
                apps.map { app in
                    let arrivals = navIn.filter { $0.fields[FieldName.refererAppName] == app }.count
                    let returns = back.filter { $0.fields[FieldName.refererAppName] == app }.count
                    return Report.RefererApp(
                        name: app, arrivals: arrivals, share: rate(arrivals, navIn.count), returns: returns,
                        returnRate: rate(returns, arrivals))
                }, \.arrivals, \.name),
            refCategories: order(
                refs.map { ref in
                    let out = navOut.filter { $0.fields[FieldName.ref] == ref }
                    return Report.RefCategory(
                        ref: ref, arrivals: navIn.filter { $0.fields[FieldName.ref] == ref }.count,
                        navOutAttempts: out.count, navOutSucceeded: out.filter(ok).count,
                        navOutSuccessRate: rate(out.filter(ok).count, out.count),
                        returns: back.filter { $0.fields[FieldName.ref] == ref }.count)
                }, \.arrivals, \.ref),
            daily: days.keys.sorted().map { date in
                let events = days[date]!
                let out = events.filter { $0.name == EventName.navOut }
                return Report.Day(
                    date: date, navIn: events.filter { $0.name == EventName.navIn }.count, navOut: out.count,
                    refBackOut: events.filter { $0.name == EventName.refBackOut }.count,
                    navOutSuccessRate: rate(out.filter(ok).count, out.count), navOutSucceeded: out.filter(ok).count,
                    navOutByType: Dictionary(
                        uniqueKeysWithValues: ["app", "web", "fail"].map { type in
                            (type, out.filter { $0.fields[FieldName.type] == type }.count)
                        }))
            },
            completeness: Report.Completeness(
                dropped: 0, rejected: rejected.values.map(\.count).reduce(0, +), altered: 0,
                byReason: Dictionary(
                    uniqueKeysWithValues: rejected.map { ("applink_rejected:\($0.key ?? "unknown")", $0.value.count) }),
                // A loss has no field: every filter the query sets is one the losses do not follow.
                notFilteredBy: [
                    ("ref", query.ref), ("referer_app", query.refererApp), ("source_host", query.sourceHost),
                    ("link", query.link),
                ].compactMap { $0.1 == nil ? nil : $0.0 })
        )
    }
}

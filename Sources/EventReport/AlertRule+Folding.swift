extension AlertRule {
    /// One alert per cause (docs/cli.md, "One alert per cause"). A broken source host drags down `all` and every
    /// `ref` it sends: after the rule has listed the alerts, each alert on `all` or `ref` is measured again without
    /// the navigations of every alerted source host. When it no longer meets the rule, it is folded under the
    /// source-host alert that explains it: the first, in order, whose removal alone clears it; else the first, in
    /// order, that has navigations in the slice. An alert that still meets the rule without those hosts stays a
    /// cause of its own, and so does every `source_host` and `link` alert.
    ///
    /// - Parameters:
    ///   - alerts: the alerts of the rule, ordered (``ordered(_:)``).
    ///   - now: the slices of the report's window.
    ///   - before: the slices of the previous window.
    /// - Returns: the causes, in the order of `alerts`, each with the alerts it explains in that order too.
    func folded(_ alerts: [Report.Alert], now: Slices, before: Slices) -> [Report.Alert] {
        let hostAlerts = alerts.indices.filter { alerts[$0].dimension == .sourceHost }
        guard !hostAlerts.isEmpty else { return alerts }
        let hosts = hostAlerts.map { alerts[$0].value }
        var explained: [Int: [Report.Alert]] = [:]
        var folded: Set<Int> = []
        for (index, alert) in alerts.enumerated() where alert.dimension == .all || alert.dimension == .ref {
            let key = Slices.Key(dimension: alert.dimension, value: alert.value)
            guard !holds(key, without: hosts, now: now, before: before) else { continue }
            let cause =
                hostAlerts.first { !holds(key, without: [alerts[$0].value], now: now, before: before) }
                ?? hostAlerts.first { now.attempts(key, from: alerts[$0].value) > 0 } ?? hostAlerts[0]
            explained[cause, default: []].append(alert)
            folded.insert(index)
        }
        return alerts.indices.filter { !folded.contains($0) }.map { index in
            var cause = alerts[index]
            cause.explains = explained[index] ?? []
            return cause
        }
    }

    /// Whether the slice `key` still meets the rule without the navigations of `hosts`.
    private func holds(_ key: Slices.Key, without hosts: [String?], now: Slices, before: Slices) -> Bool {
        flags(now: now.period(key, without: hosts), before: before.period(key, without: hosts))
    }
}

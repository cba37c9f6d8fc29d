/// The rows of the report's dimension tables, each figure with its change against the previous period
/// (``ReportChange``): what the text formats (``Report/tables()``) and the HTML page (``HTMLRenderer``) both
/// show, built in one place so that the formats cannot drift apart. The first cell names the row.
extension Report {
    /// The change of this report's rows against its previous period (none without a comparison).
    var change: ReportChange {
        ReportChange(previous: previous, top: previousBox?.top)
    }

    /// Outbound navigations by type (``ReportText/typeOrder``): type, navigations, share.
    func outboundTypeRows(_ change: ReportChange) -> [[String]] {
        let whole: Prior<Report> = previous.map { .found($0) } ?? .none
        return ReportText.typeOrder.map { type in
            [
                type,
                change.count(navigation.byType[type, default: 0], whole) { $0.navigation.byType[type, default: 0] },
                change.rate(navigation.share(ofType: type), whole) { $0.navigation.share(ofType: type) },
            ]
        }
    }

    /// The referer apps: name, arrivals, share, returns, return rate.
    func refererAppRows(_ change: ReportChange) -> [[String]] {
        refererApps.map { row in
            let prior = change.prior(\.refererApps) { $0.name == row.name }
            return [
                row.name ?? ReportText.none, change.count(row.arrivals, prior) { $0.arrivals },
                change.rate(row.share, prior) { $0.share }, change.count(row.returns, prior) { $0.returns },
                change.rate(row.returnRate, prior) { $0.returnRate },
            ]
        }
    }

    /// The ref categories: ref, arrivals, outbound attempts, outbound succeeded, outbound success, returns.
    func refCategoryRows(_ change: ReportChange) -> [[String]] {
        refCategories.map { row in
            let prior = change.prior(\.refCategories) { $0.ref == row.ref }
            return [
                row.ref ?? ReportText.none, change.count(row.arrivals, prior) { $0.arrivals },
                change.count(row.navOutAttempts, prior) { $0.navOutAttempts },
                change.count(row.navOutSucceeded, prior) { $0.navOutSucceeded },
                change.rate(row.navOutSuccessRate, prior) { $0.navOutSuccessRate },
                change.count(row.returns, prior) { $0.returns },
            ]
        }
    }

    /// The failure reasons of outbound navigations: error, failed.
    func failureReasonRows(_ change: ReportChange) -> [[String]] {
        navigation.failureReasons.map { row in
            let prior = change.prior(\.navigation.failureReasons) { $0.error == row.error }
            return [row.error ?? ReportText.none, change.count(row.count, prior) { $0.count }]
        }
    }

    /// The source hosts of outbound navigations: host, attempts, succeeded, success rate.
    func sourceHostRows(_ change: ReportChange) -> [[String]] {
        navigation.sourceHosts.map { row in
            let prior = change.prior(\.navigation.sourceHosts) { $0.host == row.host }
            return [
                row.host ?? ReportText.none, change.count(row.attempts, prior) { $0.attempts },
                change.count(row.succeeded, prior) { $0.succeeded },
                change.rate(row.successRate, prior) { $0.successRate },
            ]
        }
    }
}

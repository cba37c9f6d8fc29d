import EventStoreInterface

// The fixed order in which the writers upsert rollup groups (PostgresRollups.order): any total order shared by
// every writer will do; these list each key's values, numbers as text.

extension RollupKey {
    var sortKey: [String?] {
        [String(bucket), name, ref, refererAppName, type, success.map { String($0) }, sourceURLHost, error]
    }
}

extension SeriesKey {
    var sortKey: [String?] { [String(bucket), name, type, success.map { String($0) }] }
}

extension LinkRollupKey {
    var sortKey: [String?] {
        [
            String(bucket), name, slug, origin, ref, refererAppName, status.map { String($0) },
            crawler.map { String($0) },
        ]
    }
}

extension LinkVisitorKey {
    var sortKey: [String?] { [String(day), slug, visitor, ref, refererAppName] }
}

extension LinkVisitorCountKey {
    var sortKey: [String?] { [String(day), slug, scope.rawValue, ref, refererAppName] }
}

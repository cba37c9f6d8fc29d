import EventStoreInterface
import PostgresNIO

/// The alert episodes of `alstats serve` (Migrations/postgres/0009_create_alert_episodes.sql), shared by every server
/// on the database. Each change is one statement of `Statements/`, atomic on its own: an episode opens once however
/// many servers open it at the same time (`ON CONFLICT DO NOTHING`), and a notice is claimed by one server only (the
/// claim locks the row it picks and skips rows another server is claiming).
extension PostgresEventStore: AlertEpisodeStore {
    public func openAlertEpisodes() async throws(StoreError) -> [AlertEpisode] {
        try await withConnection(doing: "reading the open alert episodes") { connection in
            try await self.rows(PostgresSQL.statement("select_open_alert_episodes"), on: connection, Self.episode)
        }
    }

    @discardableResult
    public func openAlertEpisode(slice: String, alert: String, at milliseconds: Int64) async throws(StoreError) -> Bool
    {
        try await withConnection(doing: "opening an alert episode") { connection in
            var binds = PostgresBindings()
            binds.append(slice)
            binds.append(alert)
            binds.append(milliseconds)
            let opened = try await self.rows(PostgresSQL.statement("insert_alert_episode"), binds, on: connection) {
                try $0[0].decode(Int64.self)
            }
            return !opened.isEmpty
        }
    }

    @discardableResult
    public func resolveAlertEpisode(id: Int64, at milliseconds: Int64) async throws(StoreError) -> Bool {
        try await withConnection(doing: "resolving an alert episode") { connection in
            var binds = PostgresBindings()
            binds.append(id)
            binds.append(milliseconds)
            let resolved = try await self.rows(PostgresSQL.statement("resolve_alert_episode"), binds, on: connection) {
                try $0[0].decode(Int64.self)
            }
            return !resolved.isEmpty
        }
    }

    public func claimAlertDelivery(
        owner: String, at now: Int64, leaseUntil: Int64
    ) async throws(StoreError) -> AlertDelivery? {
        try await withConnection(doing: "claiming an alert notice") { connection in
            var binds = PostgresBindings()
            binds.append(owner)
            binds.append(now)
            binds.append(leaseUntil)
            return try await self.rows(PostgresSQL.statement("claim_alert_delivery"), binds, on: connection) { row in
                AlertDelivery(
                    episode: try Self.episode(row),
                    notice: try row[5].decode(Int64?.self) == nil ? .firing : .resolved,
                    failedAttempts: Int(try row[6].decode(Int64.self)))
            }.first
        }
    }

    public func finishAlertDelivery(
        _ delivery: AlertDelivery, owner: String, at milliseconds: Int64
    ) async throws(StoreError) {
        try await withConnection(doing: "recording a sent alert notice") { connection in
            var binds = PostgresBindings()
            binds.append(delivery.episode.id)
            binds.append(owner)
            binds.append(delivery.notice.rawValue)
            binds.append(milliseconds)
            try await self.run(PostgresSQL.statement("finish_alert_delivery"), binds, on: connection)
        }
    }

    public func failAlertDelivery(_ delivery: AlertDelivery, owner: String, retryAt: Int64) async throws(StoreError) {
        try await withConnection(doing: "recording a failed alert notice") { connection in
            var binds = PostgresBindings()
            binds.append(delivery.episode.id)
            binds.append(owner)
            binds.append(retryAt)
            try await self.run(PostgresSQL.statement("fail_alert_delivery"), binds, on: connection)
        }
    }

    public func nextAlertDeliveryTime() async throws(StoreError) -> Int64? {
        try await withConnection(doing: "reading when the next alert notice is due") { connection in
            try await self.rows(PostgresSQL.statement("select_next_alert_delivery"), on: connection) {
                try $0[0].decode(Int64?.self)
            }.first ?? nil
        }
    }

    /// The episode of a row: id, slice, alert, opened_ms, resolved_ms.
    private static func episode(_ row: PostgresRandomAccessRow) throws -> AlertEpisode {
        AlertEpisode(
            id: try row[0].decode(Int64.self), slice: try row[1].decode(String.self),
            alert: try row[2].decode(String.self), openedMilliseconds: try row[3].decode(Int64.self),
            resolvedMilliseconds: try row[4].decode(Int64?.self))
    }
}

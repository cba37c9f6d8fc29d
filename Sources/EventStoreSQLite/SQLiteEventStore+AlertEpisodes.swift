import EventStoreInterface
import SQLiteSupport

/// The alert episodes of `alstats serve` (Migrations/0018_create_alert_episodes.sql). Each change is one statement
/// of `Statements/`, run on the store's connection after the writer has committed what it holds, so that it never
/// joins a batch of events' transaction; SQLite's one writer at a time makes each atomic.
extension SQLiteEventStore: AlertEpisodeStore {
    public func openAlertEpisodes() throws(StoreError) -> [AlertEpisode] {
        try withStore { store throws(SQLiteError) in
            let statement = try store.connection.cachedStatement(EmbeddedSQL.statement("select_open_alert_episodes"))
            defer { statement.reset() }
            var episodes: [AlertEpisode] = []
            while try statement.step() { episodes.append(Self.episode(statement)) }
            return episodes
        }
    }

    @discardableResult
    public func openAlertEpisode(slice: String, alert: String, at milliseconds: Int64) throws(StoreError) -> Bool {
        try changingAlertEpisodes { connection throws(SQLiteError) in
            let statement = try connection.cachedStatement(EmbeddedSQL.statement("insert_alert_episode"))
            statement.bind(1, slice)
            statement.bind(2, alert)
            statement.bind(3, milliseconds)
            try statement.run()
            return connection.changes > 0
        }
    }

    @discardableResult
    public func resolveAlertEpisode(id: Int64, at milliseconds: Int64) throws(StoreError) -> Bool {
        try changingAlertEpisodes { connection throws(SQLiteError) in
            let statement = try connection.cachedStatement(EmbeddedSQL.statement("resolve_alert_episode"))
            statement.bind(1, id)
            statement.bind(2, milliseconds)
            try statement.run()
            return connection.changes > 0
        }
    }

    public func claimAlertDelivery(
        owner: String, at now: Int64, leaseUntil: Int64
    ) throws(StoreError) -> AlertDelivery? {
        try changingAlertEpisodes { connection throws(SQLiteError) in
            let statement = try connection.cachedStatement(EmbeddedSQL.statement("claim_alert_delivery"))
            statement.bind(1, owner)
            statement.bind(2, now)
            statement.bind(3, leaseUntil)
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            let delivery = AlertDelivery(
                episode: Self.episode(statement), notice: statement.isNull(5) ? .firing : .resolved,
                failedAttempts: Int(statement.int64(6)))
            while try statement.step() {}
            return delivery
        }
    }

    public func finishAlertDelivery(_ delivery: AlertDelivery, owner: String, at milliseconds: Int64) throws(StoreError)
    {
        try changingAlertEpisodes { connection throws(SQLiteError) in
            let statement = try connection.cachedStatement(EmbeddedSQL.statement("finish_alert_delivery"))
            statement.bind(1, delivery.episode.id)
            statement.bind(2, owner)
            statement.bind(3, delivery.notice.rawValue)
            statement.bind(4, milliseconds)
            try statement.run()
        }
    }

    public func failAlertDelivery(_ delivery: AlertDelivery, owner: String, retryAt: Int64) throws(StoreError) {
        try changingAlertEpisodes { connection throws(SQLiteError) in
            let statement = try connection.cachedStatement(EmbeddedSQL.statement("fail_alert_delivery"))
            statement.bind(1, delivery.episode.id)
            statement.bind(2, owner)
            statement.bind(3, retryAt)
            try statement.run()
        }
    }

    public func nextAlertDeliveryTime() throws(StoreError) -> Int64? {
        try withStore { store throws(SQLiteError) in
            let statement = try store.connection.cachedStatement(EmbeddedSQL.statement("select_next_alert_delivery"))
            defer { statement.reset() }
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return statement.int64(0)
        }
    }

    /// The episode of the current row: id, slice, alert, opened_ms, resolved_ms.
    private static func episode(_ statement: SQLiteStatement) -> AlertEpisode {
        AlertEpisode(
            id: statement.int64(0), slice: statement.text(1) ?? "", alert: statement.text(2) ?? "",
            openedMilliseconds: statement.int64(3), resolvedMilliseconds: statement.isNull(4) ? nil : statement.int64(4)
        )
    }

    /// Runs `body` (one statement) on the connection under the lock, after committing any batch the writer holds.
    private func changingAlertEpisodes<Result>(
        _ body: (SQLiteConnection) throws(SQLiteError) -> Result
    ) throws(StoreError) -> Result {
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
            return try body(store.connection)
        }
    }
}

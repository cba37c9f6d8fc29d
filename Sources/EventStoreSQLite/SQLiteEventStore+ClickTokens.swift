import EventStoreInterface
import SQLiteSupport

/// The click tokens of the install path (``ClickTokenStore``, Migrations/0019_create_click_tokens.sql), each call in a
/// transaction of its own, after committing any batch of events the writer holds.
extension SQLiteEventStore: ClickTokenStore {
    /// Stores minted clicks in one transaction; a token already stored is kept as it is.
    ///
    /// ```swift
    /// try store.recordClicks([StoredClick(token: token, slug: "invite", mintedMilliseconds: now, query: "ref=mail")])
    /// ```
    public func recordClicks(_ clicks: [StoredClick]) throws(StoreError) {
        guard !clicks.isEmpty else { return }
        try inClickTransaction(doing: "storing click tokens") { connection throws(SQLiteError) in
            let insert = try connection.cachedStatement(Self.insertClickSQL)
            for click in clicks {
                insert.bind(1, click.token)
                insert.bind(2, click.slug)
                insert.bind(3, click.mintedMilliseconds)
                insert.bind(4, click.query)
                try insert.run()
            }
        }
    }

    /// The click minted with `token`, if it is stored.
    public func click(token: String) throws(StoreError) -> StoredClick? {
        try withStore { store throws(SQLiteError) in
            try Self.storedClick(token, on: store.connection)?.click
        }
    }

    /// Claims the click of `token` for `claim`'s install (Statements/claim_click_token.sql): SQLite runs one write
    /// transaction at a time, and the claim changes the row only where no install has claimed it, so exactly one
    /// claim of a token wins, whichever connection or process makes it.
    public func claimClick(
        _ token: String, by claim: ClickClaim, mintedSince: Int64
    ) throws(StoreError) -> ClickClaimOutcome {
        try inClickTransaction(doing: "claiming a click token") { connection throws(SQLiteError) in
            let update = try connection.cachedStatement(Self.claimClickSQL)
            defer { update.reset() }
            update.bind(1, token)
            update.bind(2, claim.install)
            update.bind(3, claim.platform)
            update.bind(4, claim.claimedMilliseconds)
            update.bind(5, claim.eventID)
            update.bind(6, mintedSince)
            if try update.step() {
                let click = StoredClick(
                    token: token, slug: update.text(0) ?? "", mintedMilliseconds: update.int64(1),
                    query: update.text(2) ?? "")
                return .claimed(click, claim)
            }
            update.reset()
            guard let found = try Self.storedClick(token, on: connection) else { return .unknown }
            return ClickClaimOutcome(found: found.click, existing: found.claim, by: claim, mintedSince: mintedSince)
        }
    }

    /// Deletes the clicks minted before `cutoff`, claimed or not, with their install ids. Their bytes are
    /// overwritten with zeros (`PRAGMA secure_delete` for this transaction), so that no install id stays in the file's
    /// free pages; then the WAL, which still holds the pages as they were before, is checkpointed and cut to nothing
    /// (`wal_checkpoint(TRUNCATE)`), waiting at most 100 ms for readers. When readers hold it longer, the next call
    /// (the collector's next sweep) cuts it.
    /// - Returns: how many were deleted.
    @discardableResult
    public func deleteClicks(mintedBefore cutoff: Int64) throws(StoreError) -> Int {
        let deleted = try inClickTransaction(doing: "deleting click tokens", secureDelete: true) {
            connection throws(SQLiteError) in
            let delete = try connection.cachedStatement(Self.deleteClicksSQL)
            delete.bind(1, cutoff)
            try delete.run()
            return connection.changes
        }
        try withStore { store throws(SQLiteError) in
            let connection = store.connection
            let timeout = try connection.scalarInt("PRAGMA busy_timeout")
            try connection.execute("PRAGMA busy_timeout = 100")
            defer { try? connection.execute("PRAGMA busy_timeout = \(timeout)") }
            _ = try connection.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        return deleted
    }

    /// The click of `token` and its claim, if any.
    private static func storedClick(
        _ token: String, on connection: SQLiteConnection
    ) throws(SQLiteError) -> (click: StoredClick, claim: ClickClaim?)? {
        let select = try connection.cachedStatement(selectClickSQL)
        defer { select.reset() }
        select.bind(1, token)
        guard try select.step() else { return nil }
        let click = StoredClick(
            token: token, slug: select.text(0) ?? "", mintedMilliseconds: select.int64(1), query: select.text(2) ?? "")
        guard let install = select.text(3) else { return (click, nil) }
        let claim = ClickClaim(
            install: install, platform: select.text(4) ?? "", claimedMilliseconds: select.int64(5),
            eventID: select.text(6) ?? "")
        return (click, claim)
    }

    /// Runs `body` in a transaction of its own, after committing any batch of events the writer holds; with
    /// `secureDelete`, what it deletes is overwritten with zeros.
    private func inClickTransaction<Result>(
        doing what: String, secureDelete: Bool = false, _ body: (SQLiteConnection) throws(SQLiteError) -> Result
    ) throws(StoreError) -> Result {
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
            // Some builds of SQLite (Debian's) have it on by default, others (Apple's) off: restored as it was.
            let wasSecure = secureDelete ? try store.connection.scalarInt("PRAGMA secure_delete") : 1
            if wasSecure == 0 { try store.connection.execute("PRAGMA secure_delete = ON", doing: what) }
            defer { if wasSecure == 0 { try? store.connection.execute("PRAGMA secure_delete = OFF") } }
            try store.connection.execute("BEGIN IMMEDIATE", doing: what)
            do throws(SQLiteError) {
                let result = try body(store.connection)
                try store.connection.execute("COMMIT", doing: what)
                return result
            } catch {
                try? store.connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    static let insertClickSQL = EmbeddedSQL.statement("insert_click_token")
    static let selectClickSQL = EmbeddedSQL.statement("select_click_token")
    static let claimClickSQL = EmbeddedSQL.statement("claim_click_token")
    static let deleteClicksSQL = EmbeddedSQL.statement("delete_click_tokens")
}

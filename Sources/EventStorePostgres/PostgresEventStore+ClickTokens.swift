import EventStoreInterface
import PostgresNIO

/// The click tokens of the install path (``ClickTokenStore``, Migrations/postgres/0010_create_click_tokens.sql), which
/// several collectors on one database share: each token is claimed once, by whichever claim PostgreSQL lets change
/// its row first.
extension PostgresEventStore: ClickTokenStore {
    /// Stores minted clicks in one statement; a token already stored is kept as it is.
    /// - Throws: ``StoreError``; then none of `clicks` is stored.
    public func recordClicks(_ clicks: [StoredClick]) async throws(StoreError) {
        guard !clicks.isEmpty else { return }
        try await withConnection(doing: "storing click tokens") { connection in
            var binds = PostgresBindings()
            binds.append(clicks.map(\.token))
            binds.append(clicks.map(\.slug))
            binds.append(clicks.map(\.mintedMilliseconds))
            binds.append(clicks.map(\.query))
            try await self.run(Self.insertClicksSQL, binds, on: connection)
        }
    }

    /// The click minted with `token`, if it is stored.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func click(token: String) async throws(StoreError) -> StoredClick? {
        try await withConnection(doing: "reading a click token") { connection in
            try await self.storedClick(token, on: connection)?.click
        }
    }

    /// Claims the click of `token` for `claim`'s install (Statements/claim_click_token.sql): one `UPDATE` that only
    /// changes an unclaimed row, so that of several claims at once, from any collectors, exactly one wins.
    /// - Throws: ``StoreError``; then nothing was claimed.
    public func claimClick(
        _ token: String, by claim: ClickClaim, mintedSince: Int64
    ) async throws(StoreError) -> ClickClaimOutcome {
        try await withConnection(doing: "claiming a click token") { connection in
            var binds = PostgresBindings()
            binds.append(token)
            binds.append(claim.install)
            binds.append(claim.platform)
            binds.append(claim.claimedMilliseconds)
            binds.append(claim.eventID)
            binds.append(mintedSince)
            let won = try await self.rows(Self.claimClickSQL, binds, on: connection) { row in
                StoredClick(
                    token: token, slug: try row[0].decode(String.self),
                    mintedMilliseconds: try row[1].decode(Int64.self), query: try row[2].decode(String.self))
            }
            if let click = won.first { return ClickClaimOutcome.claimed(click, claim) }
            guard let found = try await self.storedClick(token, on: connection) else { return .unknown }
            return ClickClaimOutcome(found: found.click, existing: found.claim, by: claim, mintedSince: mintedSince)
        }
    }

    /// Deletes the clicks minted before `cutoff`, claimed or not, with their install ids.
    /// - Returns: how many were deleted.
    /// - Throws: ``StoreError``; then none was deleted.
    @discardableResult
    public func deleteClicks(mintedBefore cutoff: Int64) async throws(StoreError) -> Int {
        try await withConnection(doing: "deleting click tokens") { connection in
            var binds = PostgresBindings()
            binds.append(cutoff)
            let counts = try await self.rows(Self.deleteClicksSQL, binds, on: connection) {
                try $0[0].decode(Int64.self)
            }
            return Int(counts.first ?? 0)
        }
    }

    /// The click of `token` and its claim, if any.
    private func storedClick(
        _ token: String, on connection: PostgresConnection
    ) async throws -> (click: StoredClick, claim: ClickClaim?)? {
        var binds = PostgresBindings()
        binds.append(token)
        let found = try await rows(Self.selectClickSQL, binds, on: connection) { row in
            let click = StoredClick(
                token: token, slug: try row[0].decode(String.self), mintedMilliseconds: try row[1].decode(Int64.self),
                query: try row[2].decode(String.self))
            guard let install = try row[3].decode(String?.self) else { return (click, ClickClaim?.none) }
            let claim = ClickClaim(
                install: install, platform: try row[4].decode(String?.self) ?? "",
                claimedMilliseconds: try row[5].decode(Int64?.self) ?? 0,
                eventID: try row[6].decode(String?.self) ?? "")
            return (click, claim)
        }
        return found.first
    }

    static let insertClicksSQL = PostgresSQL.statement("insert_click_tokens")
    static let selectClickSQL = PostgresSQL.statement("select_click_token")
    static let claimClickSQL = PostgresSQL.statement("claim_click_token")
    static let deleteClicksSQL = PostgresSQL.statement("delete_click_tokens")
}

import EventStoreInterface
import EventStoreSQLite
import Foundation
import SQLiteSupport
import TestSupport
import Testing

/// The click tokens of the install path (Migrations/0019_create_click_tokens.sql) through SQLiteEventStore's
/// ``ClickTokenStore``: the claim's outcomes, one winner among concurrent claims, and nothing left once deleted.
@Suite struct ClickTokenStoreTests {
    @Test func aTokenIsClaimedOnceAgainOnlyByTheSameInstallAndNotOnceExpiredOrDeleted() async throws {
        let database = TemporaryDatabase()
        try await ClickTokenStoreContract.checkClaims(on: try SQLiteEventStore(path: database.path))
    }

    /// Two connections to one file, as two processes would be: several tasks claim through each at once.
    @Test func concurrentClaimsOfOneTokenThroughTwoConnectionsHaveExactlyOneWinner() async throws {
        let database = TemporaryDatabase()
        let first = try SQLiteEventStore(path: database.path)
        let second = try SQLiteEventStore(path: database.path)
        try await ClickTokenStoreContract.checkConcurrentClaims(on: [first, second])
    }

    /// Even where SQLite does not overwrite deleted content by default (Apple's builds; Debian's does), and in the WAL.
    @Test func noInstallIDIsLeftInTheFileOnceItsClickIsDeleted() throws {
        let database = TemporaryDatabase()
        let store = try SQLiteEventStore(path: database.path)
        func checkpoint() throws {
            _ = try store.withConnection { try $0.connection.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)") }
        }
        try store.withConnection { try $0.connection.execute("PRAGMA secure_delete = OFF") }
        let installs = (0..<200).map { "install-\($0)-" + UUID().uuidString }
        let clicks = installs.indices.map {
            StoredClick(token: String(format: "T%020dA", $0), slug: "invite", mintedMilliseconds: Int64($0))
        }
        try store.recordClicks(clicks)
        for (click, install) in zip(clicks, installs) {
            let claim = ClickClaim(install: install, platform: "ios", claimedMilliseconds: 1_000, eventID: "e")
            #expect(try store.claimClick(click.token, by: claim, mintedSince: 0) == .claimed(click, claim))
        }
        try checkpoint()  // the claims in the file itself
        #expect(try store.deleteClicks(mintedBefore: 1_000) == 200)
        // No checkpoint here: the delete itself leaves no install id in the WAL either (a WAL keeps the pages as they
        // were until a checkpoint, which on a quiet server can be days away).
        for suffix in ["", "-wal"] {
            let bytes = TemporaryDatabase.bytes(database.path + suffix)
            let left = installs.filter { bytes.range(of: Data($0.utf8)) != nil }
            #expect(left.count == 0, "install ids left in \(suffix.isEmpty ? "the file" : "the WAL"): \(left.count)")
        }
    }
}

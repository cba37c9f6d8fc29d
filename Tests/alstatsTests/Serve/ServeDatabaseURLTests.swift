#if Server

import Foundation
import TestSupport
import Testing

/// `alstats serve --database postgres://...` of a server that does not answer: refused before it listens, one
/// line, exit 74, the password hidden.
struct ServeDatabaseURLTests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func serveWithAPostgresURLOfAServerThatDoesNotAnswerStopsBeforeListening() throws {
        let result = try runAlstatsStatus([
            "serve", "--database", "postgres://alstats:Hunter2-s3cr3t@127.0.0.1:9/alstats", "--no-auth", "--port", "0",
        ])
        #expect(result.status == 74, "\(result.errors)")
        #expect(!result.errors.contains("Hunter2"))
        #expect(!result.errors.contains("listening"))
    }
}

#endif

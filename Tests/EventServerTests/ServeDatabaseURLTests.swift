import Foundation
import TestSupport
import Testing

/// `alstats serve --database postgres://...` on a build without the PostgreSQL backend: refused before it
/// listens, one line, exit 78, the password hidden.
struct ServeDatabaseURLTests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func serveWithAPostgresURLSaysThisBuildHasNoPostgresBackend() throws {
        let result = try runAlstatsStatus([
            "serve", "--database", "postgres://alstats:Hunter2-s3cr3t@127.0.0.1/alstats", "--no-auth", "--port", "0",
        ])
        #expect(result.status == 78, "\(result.errors)")
        #expect(result.errors.contains("without the PostgreSQL backend"), "\(result.errors)")
        #expect(!result.errors.contains("Hunter2"))
        #expect(!result.errors.contains("listening"))
    }
}

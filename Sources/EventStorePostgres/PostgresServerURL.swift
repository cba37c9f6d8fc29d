import EventStoreInterface
import Foundation
import PostgresNIO

/// A PostgreSQL URL, `postgres://user[:password]@host[:port]/database[?sslmode=...]` (`postgresql://` too), as
/// a client configuration. Parsed by SQLiteEventStore's ``PostgresLocation``, the one parser of `--database`, so that
/// the CLI and this module read a URL alike and no message holds its password.
package struct PostgresServerURL {
    /// The client configuration.
    package var configuration: PostgresClient.Configuration
    /// The URL without its password, to name the store in messages.
    var redacted: String

    /// Parses `url`.
    /// - Throws: ``StoreError`` `.invalidLocation` when it is not a PostgreSQL URL with a host, a user and a
    ///   database; the message never holds the password.
    package init(_ url: String) throws(StoreError) {
        self.init(try PostgresLocation(url: url))
    }

    /// The configuration of a parsed `location`.
    package init(_ location: PostgresLocation) {
        let tls: PostgresClient.Configuration.TLS
        switch location.sslMode {
        case .disable: tls = .disable
        case .allow, .prefer: tls = .prefer(.makeClientConfiguration())
        case .require, .verifyCA, .verifyFull: tls = .require(.makeClientConfiguration())
        }
        configuration = PostgresClient.Configuration(
            host: location.host, port: location.port, username: location.user, password: location.password,
            database: location.database, tls: tls)
        redacted = location.description
    }
}

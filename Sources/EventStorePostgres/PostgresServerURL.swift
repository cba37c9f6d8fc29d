import EventStore
import Foundation
import PostgresNIO

/// A PostgreSQL URL, `postgres://user[:password]@host[:port]/database[?sslmode=disable|prefer|require]`
/// (`postgresql://` too), as a client configuration.
struct PostgresServerURL {
    /// The client configuration.
    var configuration: PostgresClient.Configuration
    /// The URL without its password, to name the store in messages.
    var redacted: String

    /// Parses `url`.
    /// - Throws: ``StoreError`` `.missing` when it is not a PostgreSQL URL with a host, a user and a database.
    init(_ url: String) throws(StoreError) {
        guard var components = URLComponents(string: url),
            components.scheme == "postgres" || components.scheme == "postgresql",
            let host = components.host, !host.isEmpty, let user = components.user, !user.isEmpty
        else {
            throw StoreError(
                .missing, path: url,
                "\(url) is not a PostgreSQL URL: write postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        let database = String(components.path.drop(while: { $0 == "/" }))
        let password = components.password
        let mode = components.queryItems?.first(where: { $0.name == "sslmode" })?.value ?? "prefer"
        let tls: PostgresClient.Configuration.TLS
        switch mode {
        case "disable": tls = .disable
        case "prefer", "allow": tls = .prefer(.makeClientConfiguration())
        case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
        default:
            throw StoreError(
                .missing, path: url, "sslmode=\(mode) in \(url) is not one of disable, prefer, require")
        }
        configuration = PostgresClient.Configuration(
            host: host, port: components.port ?? 5432, username: user, password: password,
            database: database.isEmpty ? user : database, tls: tls)
        if password != nil { components.password = "***" }
        redacted = components.string ?? url
    }
}

import EventStoreInterface
import PostgresNIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension PostgresEventStore {
    /// Fails at once when nothing listens at the server's host and port, or the host name has no address: the
    /// client's pool would retry such a server until ``Options/connectTimeout``. One TCP connection is opened and
    /// closed again (no TLS, no login); a server that answers is left to the pool, and a connection that hangs
    /// (a firewall dropping it) to the connect timeout.
    /// - Throws: ``StoreError`` `.io` naming the URL (its password hidden) and what to check.
    func failIfNothingListens() async throws(StoreError) {
        let bootstrap = ClientBootstrap(group: PostgresConnection.defaultEventLoopGroup)
            .connectTimeout(TimeAmount(connectTimeout))
        do {
            let channel = try await bootstrap.connect(host: host, port: port).get()
            try? await channel.close()
        } catch let error as NIOConnectionError {
            let refused = error.connectionErrors.contains { ($0.error as? IOError)?.errnoCode == ECONNREFUSED }
            let unresolved = error.connectionErrors.isEmpty && (error.dnsAError != nil || error.dnsAAAAError != nil)
            guard refused || unresolved else { return }
            let what =
                refused
                ? "the connection to \(host):\(port) was refused: nothing listens there"
                : "the host name \(host) has no address"
            throw StoreError(
                .io, path: location,
                "PostgreSQL at \(location): \(what); is the server running, and are the URL's host and port right?")
        } catch {
            return  // a timeout or another failure: the pool's connect decides
        }
    }
}

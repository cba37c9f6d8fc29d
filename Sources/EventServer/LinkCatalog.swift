import EventStore
import Foundation
import HostedLinks
import MeasurementEvents

/// The hosted links the pages are served from, read from the backend on an executor of its own (never on an
/// event-loop thread) and kept in memory for ``maximumAge``, so that a page costs no SQLite read; links
/// changed through the admin API are seen at once, links changed by `alstats links put` (or by another
/// server on the same database) within ``maximumAge``.
final class LinkCatalog: Sendable {
    /// How long the links read from the store are used before they are read again.
    let maximumAge: Duration
    private let store: any EventBackend
    private let executor = StoreExecutor(label: "alstats-links")
    private let cache = StateLock<(links: [String: HostedLink], read: ContinuousClock.Instant)?>(nil)

    init(store: any EventBackend, maximumAge: Duration = .seconds(1)) {
        self.store = store
        self.maximumAge = maximumAge
    }

    /// The link named `slug` from memory, without suspending: `.some(nil)` when there is none, `nil` when the
    /// links in memory are older than ``maximumAge`` (then ``link(_:)`` reads them again). A page's fast path:
    /// an `await` would hop off the event loop and back for every page.
    func cachedLink(_ slug: String) -> HostedLink?? {
        guard let cached = cache.withLock({ $0 }), cached.read.duration(to: .now) < maximumAge else { return nil }
        return .some(cached.links[slug])
    }

    /// The link named `slug`, or `nil`, reading the store when the links in memory are too old.
    /// - Throws: ``EventServerError`` (500) when the store cannot be read.
    func link(_ slug: String) async throws(EventServerError) -> HostedLink? {
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0 }), cached.read.duration(to: now) < maximumAge {
            return cached.links[slug]
        }
        let links = try await onQueue { store throws(StoreError) in try await store.links() }
        var parsed: [String: HostedLink] = [:]
        for stored in links {
            // Stored links were validated when put; one that no longer parses is served as absent.
            if let value = try? JSONValue.parse(stored.json), let link = try? HostedLink(json: value) {
                parsed[link.slug] = link
            }
        }
        cache.withLock { $0 = (parsed, now) }
        return parsed[slug]
    }

    /// Forgets the links in memory: the next page reads them again.
    func invalidate() {
        cache.withLock { $0 = nil }
    }

    /// Runs `body` with the backend on the catalog's executor.
    func onQueue<Result: Sendable>(
        _ body: @Sendable (any EventBackend) async throws(StoreError) -> Result
    ) async throws(EventServerError) -> Result {
        do {
            return try await executor.run { () async throws(StoreError) -> Result in try await body(store) }
        } catch {
            throw EventServerError(.internalServerError, "the links could not be read or written: \(error.message)")
        }
    }
}

import Dispatch
import EventStore
import Foundation
import HostedLinks
import MeasurementEvents

/// The hosted links the pages are served from, read from the store on a queue of its own (never on an
/// event-loop thread) and kept in memory for ``maximumAge``, so that a page costs no SQLite read; links
/// changed through the admin API are seen at once, links changed by `alstats links put` within
/// ``maximumAge``.
final class LinkCatalog: Sendable {
    /// How long the links read from the store are used before they are read again.
    let maximumAge: Duration
    private let store: EventStore
    private let queue = DispatchQueue(label: "alstats-links")
    private let cache = StateLock<(links: [String: HostedLink], read: ContinuousClock.Instant)?>(nil)

    init(store: EventStore, maximumAge: Duration = .seconds(1)) {
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
        let links = try await onQueue { store throws(StoreError) in try store.links() }
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

    /// Runs `body` with the store on the catalog's queue.
    func onQueue<Result: Sendable>(
        _ body: @escaping @Sendable (EventStore) throws(StoreError) -> Result
    ) async throws(EventServerError) -> Result {
        let result = await withCheckedContinuation {
            (answer: CheckedContinuation<Swift.Result<Result, StoreError>, Never>) in
            queue.async { [store] in
                answer.resume(returning: Swift.Result { () throws(StoreError) -> Result in try body(store) })
            }
        }
        do {
            return try result.get()
        } catch {
            throw EventServerError(.internalServerError, "the links could not be read or written: \(error.message)")
        }
    }
}

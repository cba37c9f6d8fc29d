import EventStoreInterface
import Foundation
import HostedLinks
import MeasurementEvents

/// The hosted links the pages are served from, read from the backend on an executor of its own (never on an
/// event-loop thread) and kept in memory for ``maximumAge``, so that a page costs no SQLite read; links
/// changed through the admin API are seen at once, links changed by `alstats links put` (or by another
/// server on the same database) within ``maximumAge``.
///
/// Every change of the links in memory (a put or delete through the admin API, or a read of the store that
/// finds other links than before) starts a new ``LinkLookup/generation`` and empties ``pages``, the rendered
/// pages, so that no page of an old link is ever answered again.
final class LinkCatalog: Sendable {
    /// How long the links read from the store are used before they are read again.
    let maximumAge: Duration
    /// The rendered pages of these links.
    let pages: LinkPageCache
    private let store: any LinkStore
    private let executor = StoreExecutor(label: "alstats-links")
    private let state = StateLock(State())

    private struct State {
        var links: [String: HostedLink] = [:]
        /// When ``links`` were read; `nil` when they must be read before use.
        var read: ContinuousClock.Instant?
        var generation = 0
    }

    init(store: any LinkStore, maximumAge: Duration = .seconds(1), pages: LinkPageCache = LinkPageCache()) {
        self.store = store
        self.maximumAge = maximumAge
        self.pages = pages
    }

    /// The link named `slug` from memory, without suspending; `nil` when the links in memory are older than
    /// ``maximumAge`` (then ``link(_:)`` reads them again). A page's fast path: an `await` would hop off the
    /// event loop and back for every page.
    func cachedLink(_ slug: String) -> LinkLookup? {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let read = state.read, read.duration(to: now) < maximumAge else { return nil }
            return LinkLookup(link: state.links[slug], generation: state.generation)
        }
    }

    /// The link named `slug`, or none, reading the store when the links in memory are too old. Requests that
    /// find them too old at once wait in turn on the catalog's queue, where the first reads them and the
    /// others find them fresh.
    /// - Throws: ``EventServerError`` (500) when the store cannot be read.
    func link(_ slug: String) async throws(EventServerError) -> LinkLookup {
        if let fresh = cachedLink(slug) { return fresh }
        return try await onQueue { [self] store throws(StoreError) in
            if let fresh = cachedLink(slug) { return fresh }
            let read = ContinuousClock.now
            var parsed: [String: HostedLink] = [:]
            for stored in try await store.links() {
                // Stored links were validated when put; one that no longer parses is served as absent.
                if let value = try? JSONValue.parse(stored.json), let link = try? HostedLink(json: value) {
                    parsed[link.slug] = link
                }
            }
            let (generation, changed) = state.withLock { state in
                let changed = state.links != parsed
                if changed { state.generation += 1 }
                state.links = parsed
                state.read = read
                return (state.generation, changed)
            }
            if changed { pages.removeAll() }
            return LinkLookup(link: parsed[slug], generation: generation)
        }
    }

    /// Forgets the links in memory and their pages (a link was put or deleted): the next page reads them again.
    func invalidate() {
        state.withLock { state in
            state.read = nil
            state.generation += 1
        }
        pages.removeAll()
    }

    /// Runs `body` with the backend on the catalog's executor.
    func onQueue<Result: Sendable>(
        _ body: @Sendable (any LinkStore) async throws(StoreError) -> Result
    ) async throws(EventServerError) -> Result {
        do {
            return try await executor.run { () async throws(StoreError) -> Result in try await body(store) }
        } catch {
            throw EventServerError(.internalServerError, "the links could not be read or written: \(error.message)")
        }
    }
}

/// A link looked up in the ``LinkCatalog``: the link (none for an unknown slug) and the generation of the
/// links it was found in, which a cached page is kept under.
struct LinkLookup: Sendable {
    /// The link, or `nil` when no link has the slug.
    var link: HostedLink?
    /// The catalog's generation of the links.
    var generation: Int
}

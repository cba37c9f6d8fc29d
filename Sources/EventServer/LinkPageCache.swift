import HostedLinks
import MeasurementEvents
import NIOCore

/// The rendered hosted link pages, so that a page asked for again costs a dictionary look-up instead of its
/// rendering. A page is kept under everything it is made of: the slug, the catalog's generation of the links
/// (a link put, deleted or changed in the store starts a new one, see ``LinkCatalog``), the base URL, the
/// variant (`Prefer-Html-Meta-Tags: al` or the full page) and the passed values after normalisation (only the
/// link's `pass_query` names and `ref`, first value each, percent-encoded as on the page). HEAD answers with
/// the GET page's length and no body.
///
/// Bounded by bytes, not entries (the passed values are the visitor's: every new value is a new page): the
/// pages and their keys together hold at most ``maximumBytes``; the oldest pages are dropped first.
///
/// A page for a visitor with a click token (docs/install.md) is kept with a placeholder token where the token goes
/// and the byte offsets of each: ``Page/filled(with:)`` writes a visitor's token over them.
final class LinkPageCache: Sendable {
    /// A rendered page, and where a click token goes in it.
    struct Page: Sendable, Equatable {
        /// The page's bytes.
        var html: ByteBuffer
        /// The offsets of the click token's places in ``html``, each ``clickLength`` bytes long (none for a page
        /// without a token).
        var clickOffsets: [Int] = []

        /// The length of a click token (22 ASCII characters, as the placeholder's).
        static let clickLength = 22

        /// The page with `click` (``clickLength`` ASCII bytes) at each of its places.
        func filled(with click: String) -> ByteBuffer {
            guard !clickOffsets.isEmpty, click.utf8.count == Self.clickLength else { return html }
            var page = html
            for offset in clickOffsets { page.setString(click, at: page.readerIndex + offset) }
            return page
        }

        /// The page rendered by `render` with a fresh random `placeholder` token (`render(placeholder)`), and the
        /// places of the placeholder in it: a random token is found nowhere else in a page.
        static func withClick(placeholder: String, _ render: (String) -> String) -> Page {
            let text = render(placeholder)
            var offsets: [Int] = []
            let bytes = Array(text.utf8)
            let marker = Array(placeholder.utf8)
            var index = 0
            while index + marker.count <= bytes.count {
                if bytes[index] == marker[0], bytes[index..<(index + marker.count)].elementsEqual(marker) {
                    offsets.append(index)
                    index += marker.count
                } else {
                    index += 1
                }
            }
            return Page(html: ByteBuffer(bytes: bytes), clickOffsets: offsets)
        }
    }

    /// What one cached page is made of.
    struct Key: Hashable, Sendable {
        /// The requested slug.
        var slug: String
        /// The catalog's generation of the links the page was rendered from.
        var generation: Int
        /// The URL the page's canonical `og:url` starts with.
        var base: String
        /// Whether the page holds the `al:*` tags only (`Prefer-Html-Meta-Tags: al`).
        var alTagsOnly: Bool
        /// The passed values as the page's URLs carry them (``HostedLinkPage/passedQuery``).
        var passed: String
        /// The visitor's platform, whose buttons the body puts first.
        var platform: HitPlatform
        /// Whether the page has places for a click token (a person's page), or none (a crawler's).
        var click: Bool = false

        /// The bytes the key holds, counted against the bound with a fixed overhead per entry.
        var byteCount: Int { slug.utf8.count + base.utf8.count + passed.utf8.count + LinkPageCache.entryOverhead }
    }

    /// The bytes counted for each entry besides its page and key strings (dictionary slot, buffer header).
    static let entryOverhead = 96
    /// The most bytes the pages and their keys hold together.
    let maximumBytes: Int
    private let state = StateLock(State())

    private struct State {
        var pages: [Key: Page] = [:]
        /// Keys in the order they were stored, oldest at `head`: the eviction order.
        var order: [Key] = []
        var head = 0
        var bytes = 0
    }

    /// A cache holding at most `maximumBytes` (4 MiB by default: some thousand pages of a few KiB).
    init(maximumBytes: Int = 4 << 20) {
        self.maximumBytes = max(0, maximumBytes)
    }

    /// The page stored under `key`, if any.
    func page(for key: Key) -> Page? {
        state.withLock { $0.pages[key] }
    }

    /// Keeps `page` under `key`, dropping the oldest pages until it fits; a page larger than the whole bound
    /// is not kept.
    func store(_ page: Page, for key: Key) {
        let size = page.html.readableBytes + key.byteCount
        guard size <= maximumBytes else { return }
        state.withLock { state in
            if let old = state.pages.updateValue(page, forKey: key) {
                state.bytes -= old.html.readableBytes + key.byteCount
            } else {
                state.order.append(key)
            }
            state.bytes += size
            while state.bytes > maximumBytes, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let dropped = state.pages.removeValue(forKey: oldest) {
                    state.bytes -= dropped.html.readableBytes + oldest.byteCount
                }
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    /// Forgets every page (the links changed).
    func removeAll() {
        state.withLock { $0 = State() }
    }

    /// The pages kept and the bytes counted for them.
    var usage: (pages: Int, bytes: Int) {
        state.withLock { ($0.pages.count, $0.bytes) }
    }
}

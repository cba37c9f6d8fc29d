/// Where the hosted links of `alstats serve` are kept (docs/hosted-links.md): the links themselves, by slug, and the
/// public URLs they are served under, which the report needs to count a link's arrivals. Both backends are one;
/// StoreOpening's `OpenedStore.linkStore` is the one a program should use (for SQLite, a connection of its own beside
/// the writer's).
///
/// ```swift
/// let store: any LinkStore = try SQLiteEventStore(path: "alstats.sqlite")
/// try await store.putLinks([StoredLink(slug: "invite", json: json)])
/// print(try await store.link(slug: "invite")?.json ?? "none")
/// ```
public protocol LinkStore: AnyObject, Sendable {
    /// Stores `links`, replacing any with the same slug, all or none in one transaction.
    /// - Throws: ``StoreError``; then no link of the call is stored.
    func putLinks(_ links: [StoredLink]) async throws(StoreError)

    /// Every stored link, by slug.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func links() async throws(StoreError) -> [StoredLink]

    /// The link named `slug`, or `nil`.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func link(slug: String) async throws(StoreError) -> StoredLink?

    /// Deletes the link named `slug`; `false` when there was none.
    /// - Throws: ``StoreError``; then nothing was deleted.
    @discardableResult
    func deleteLink(slug: String) async throws(StoreError) -> Bool

    /// Records `url` as a public URL of the hosted links (kept once).
    /// - Throws: ``StoreError``; then nothing was recorded.
    func recordPublicURL(_ url: LinkPublicURL) async throws(StoreError)

    /// The recorded public URLs of the hosted links, sorted.
    /// - Throws: ``StoreError`` when the database cannot be read.
    func publicURLs() async throws(StoreError) -> [String]
}

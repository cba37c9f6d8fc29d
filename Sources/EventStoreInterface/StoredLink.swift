/// A hosted link as the store keeps it: its slug and canonical JSON (Migrations/0008_create_links.sql).
/// The HostedLinks module reads and writes the JSON; the store does not interpret it.
public struct StoredLink: Sendable, Hashable {
    /// The link's slug, its key.
    public var slug: String
    /// The link's canonical JSON text.
    public var json: String
    /// When it was last put, in milliseconds since the Unix epoch.
    public var updatedMilliseconds: Int64

    /// Creates a stored link.
    public init(slug: String, json: String, updatedMilliseconds: Int64 = 0) {
        self.slug = slug
        self.json = json
        self.updatedMilliseconds = updatedMilliseconds
    }
}

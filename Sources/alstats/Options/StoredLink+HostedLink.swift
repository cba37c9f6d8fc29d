import EventStoreInterface
import HostedLinks

extension StoredLink {
    /// The stored form of `link`: its slug and canonical JSON.
    init(_ link: HostedLink) {
        self.init(slug: link.slug, json: link.jsonValue.jsonText())
    }
}

import EventStore
import HostedLinks

extension EventStore {
    /// Stores `links` in their canonical JSON, replacing those with the same slug (all or none).
    func putLinks(_ links: [HostedLink]) throws(StoreError) {
        try putLinks(links.map { StoredLink(slug: $0.slug, json: $0.jsonValue.jsonText()) })
    }
}

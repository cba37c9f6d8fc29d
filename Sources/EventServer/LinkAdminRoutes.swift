import EventStoreInterface
import HostedLinks
import Hummingbird
import MeasurementEvents
import NIOCore

/// The links API (admin key, docs/http-api.md, "The links API"): `GET /api/links` (every link, by slug),
/// `GET /api/links/{slug}`, `PUT /api/links/{slug}` (the link's JSON; stored, replacing one with the slug; 422 naming
/// the field when invalid), `DELETE /api/links/{slug}` (204, or 404). The same JSON as `alstats links`.
struct LinkAdminRoutes {
    typealias Context = ServerRequestContext

    /// The largest link JSON accepted.
    static let maximumBodyBytes = 256 * 1024

    let catalog: LinkCatalog

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("api/links") { _, _ in
            let links = try await catalog.onQueue { store throws(StoreError) in try await store.links() }
            return Response.text("[" + links.map(\.json).joined(separator: ",") + "]", contentType: "application/json")
        }
        group.get("api/links/:slug") { _, context in
            let slug = context.parameters.get("slug") ?? ""
            guard let link = try await catalog.onQueue({ store throws(StoreError) in try await store.link(slug: slug) })
            else { throw EventServerError(.notFound, "no link named \(slug)") }
            return Response.text(link.json, contentType: "application/json")
        }
        group.put("api/links/:slug") { request, context in
            let slug = context.parameters.get("slug") ?? ""
            let body: ByteBuffer
            do {
                body = try await request.body.collect(upTo: LinkAdminRoutes.maximumBodyBytes)
            } catch is NIOTooManyBytesError {
                // Hummingbird's own answer to the error is a 413 with no body; every refusal here has a JSON one.
                throw EventServerError(.contentTooLarge, "a link's JSON is larger than 256 KiB")
            }
            let link = try LinkAdminRoutes.link(String(buffer: body), slug: slug)
            let json = link.jsonValue.jsonText()
            try await catalog.onQueue { store throws(StoreError) in
                try await store.putLinks([StoredLink(slug: link.slug, json: json)])
            }
            catalog.invalidate()
            return Response.text(json, contentType: "application/json")
        }
        group.delete("api/links/:slug") { _, context in
            let slug = context.parameters.get("slug") ?? ""
            let deleted = try await catalog.onQueue { store throws(StoreError) in
                try await store.deleteLink(slug: slug)
            }
            catalog.invalidate()
            guard deleted else { throw EventServerError(.notFound, "no link named \(slug)") }
            return Response(status: .noContent)
        }
    }

    /// The link of a PUT body for `slug`.
    /// - Throws: ``EventServerError``: 400 for a body that is not JSON, 422 for an invalid link or a slug
    ///   other than the path's.
    static func link(_ text: String, slug: String) throws(EventServerError) -> HostedLink {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            throw EventServerError(.badRequest, "the body is not JSON: \(error.description)")
        }
        let link: HostedLink
        do {
            link = try HostedLink(json: value)
        } catch {
            throw EventServerError(.unprocessableContent, error.description)
        }
        guard link.slug == slug else {
            throw EventServerError(.unprocessableContent, "slug: the body names \(link.slug), the path \(slug)")
        }
        return link
    }
}

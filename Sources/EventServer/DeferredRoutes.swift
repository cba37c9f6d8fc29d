import EventStoreInterface
import HostedLinks
import Hummingbird
import MeasurementEvents
import NIOCore

/// The claim of a click by an installed app, `POST /v1/deferred` (write role; docs/install.md, docs/http-api.md).
///
/// | found | answer |
/// | --- | --- |
/// | a click minted within the window, unclaimed | `200` with the link (``DeferredLinkAnswer``); `alstats_link_install` recorded |
/// | the same click claimed before by the same install | the same `200` (its install event recorded again: stored once) |
/// | claimed by another install | `409` `{"code": "already_claimed"}` |
/// | an unknown or malformed token; one minted before the window | `404` `unknown_click`; `expired_click` |
/// | no token | `204` |
/// | a body over 4 KiB; not a claim | `413` `too_large`; `400` with the problem's code |
///
/// The claim itself is one statement of the store (``ClickTokenStore/claimClick(_:by:mintedSince:)``), so that of
/// several claims of one token, on any number of collectors sharing the store, exactly one wins. A `200` is sent only
/// once the install event is committed.
struct DeferredRoutes {
    typealias Context = ServerRequestContext

    /// The pages' routes: the link look-up and the page's base URL.
    let pages: LinkRoutes
    let writer: any EventSubmitting
    let metrics: ServerMetrics

    func addRoutes(to group: RouterGroup<Context>) {
        group.post("deferred") { request, context in try await claim(request, context: context) }
    }

    private func claim(_ request: Request, context: Context) async throws -> Response {
        let claim: DeferredClaimRequest
        switch try await Self.read(request, publicURL: pages.base(request)) {
        case .claim(let read): claim = read
        case .refused(let answer): return answer
        }
        guard let token = claim.click else {
            metrics.claim("no_click")
            return Response(status: .noContent)
        }
        guard ClickToken.isToken(token) else { return outcome("unknown_click", .notFound) }
        let clicks = pages.clicks
        let attempt = ClickClaim(
            install: claim.install, platform: claim.platform.rawValue,
            claimedMilliseconds: pages.clock.nowMilliseconds(), eventID: EventID().description)
        let found: ClickClaimOutcome
        do {
            try await clicks.store(ifHeld: token)
            found = try await clicks.claim(token, by: attempt)
        } catch {
            throw EventServerError(.serviceUnavailable, "the claim could not be made: \(error.message); retry")
        }
        switch found {
        case .claimed(let click, let first):
            metrics.claim("claimed")
            return try await answer(click, first, platform: claim.platform, request: request)
        case .claimedBefore(let click, let first):
            metrics.claim("claimed_before")
            return try await answer(click, first, platform: claim.platform, request: request)
        case .claimedByAnother: return outcome("already_claimed", .conflict)
        case .expired: return outcome("expired_click", .notFound)
        case .unknown: return outcome("unknown_click", .notFound)
        }
    }

    /// The `200` of a claim: records its install event (with the first claim's id, so that a retried claim stores
    /// nothing twice) and waits for the commit.
    private func answer(
        _ click: StoredClick, _ first: ClickClaim, platform: StorePlatform, request: Request
    ) async throws -> Response {
        let answer = DeferredLinkAnswer(
            slug: click.slug, query: click.query, clickedAt: click.mintedMilliseconds,
            claimedAt: first.claimedMilliseconds, platform: StorePlatform(rawValue: first.platform) ?? platform)
        let event = MeasurementEvent(
            id: EventID(first.eventID), name: DeferredLinkAnswer.eventName, fields: answer.installFields,
            timestamp: first.claimedMilliseconds)
        do {
            _ = try await writer.submit([event], losses: [:])
        } catch {
            throw error.answer
        }
        let link = try await pages.catalog.link(click.slug).link
        return .json(answer.json(link: link, publicURL: pages.base(request)))
    }

    /// An answer `{"code": code}` with `status`, counted by its code.
    private func outcome(_ code: String, _ status: HTTPResponse.Status) -> Response {
        metrics.claim(code)
        return .json(.object(JSONObject([("code", .string(code))])), status: status)
    }

    /// A claim's body as read: the claim, or the answer refusing it.
    enum Body {
        case claim(DeferredClaimRequest)
        case refused(Response)
    }

    /// The claim of the request's body, or the answer refusing it: `413` over 4 KiB (sent or decompressed), `400`
    /// for a body that is not JSON or not a claim.
    static func read(
        _ request: Request, publicURL: String
    ) async throws(EventServerError) -> Body {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > DeferredClaimRequest.maximumBytes {
            return .refused(problem("too_large", "the body is larger than 4 KiB", .contentTooLarge))
        }
        let body: ByteBuffer
        do {
            body = try await RequestBodyReader.read(request, accepting: acceptedTypes)
        } catch  where error.status == .contentTooLarge {
            return .refused(problem("too_large", error.message, .contentTooLarge))
        } catch  where error.status == .badRequest {
            return .refused(problem("bad_body", error.message, .badRequest))
        }
        guard body.readableBytes <= DeferredClaimRequest.maximumBytes else {
            return .refused(problem("too_large", "the body is larger than 4 KiB", .contentTooLarge))
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(String(buffer: body))
        } catch {
            return .refused(problem("bad_json", "the body is not valid JSON: \(error.description)", .badRequest))
        }
        do throws(DeferredClaimRequest.Problem) {
            return .claim(try DeferredClaimRequest(json: json, publicURL: publicURL))
        } catch {
            return .refused(problem(error.code, error.description, .badRequest))
        }
    }

    /// JSON, or the uploader's transport's NDJSON (the claim as its one line; `EventUpload.DeferredLinkClaim` sends it
    /// so, gzip-compressed), or `text/plain`.
    static let acceptedTypes: Set<String> = RequestBodyReader.segmentTypes.union(RequestBodyReader.ndjsonTypes)

    private static func problem(_ code: String, _ message: String, _ status: HTTPResponse.Status) -> Response {
        .json(.object(JSONObject([("code", .string(code)), ("error", .string(message))])), status: status)
    }
}

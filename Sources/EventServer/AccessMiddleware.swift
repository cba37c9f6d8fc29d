import Hummingbird

/// Lets a request through only when its key's role may do what `role` allows (docs/http-api.md, "Keys"): 401 with
/// `WWW-Authenticate: Basic realm="alstats"` without a known key, 403 for a known key of another role.
///
/// The 401's message says which it was: no key sent (or none that can be read), or a key that is not one of this
/// server's keys of the role needed, named by its first characters and length only (``AccessKeys/maskedKey(in:)``).
///
/// The request goes on with the allowed key's position in ``AccessKeys/entries`` in its context
/// (``ServerRequestContext/writeKey``), for the rate limits of the collector.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = ServerRequestContext

    let keys: AccessKeys
    let role: AccessRole

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let authorization = request.headers[.authorization]
        let (decision, key) = keys.identify(authorization, for: role)
        switch decision {
        case .allowed:
            var context = context
            context.writeKey = key
            return try await next(request, context)
        case .unauthenticated:
            let sent =
                authorization == nil ? "no key was sent" : "the Authorization header holds no key that can be read"
            throw unauthorized("\(sent): \(role.keyNeeded) is needed, \(Self.keyForms)")
        case .unknownKey:
            let key = AccessKeys.maskedKey(in: authorization ?? "")
            throw unauthorized(
                "the key sent, \(key), is not \(role.keyNeeded) of this \(role.server): check the key, or ask for one")
        case .forbidden:
            throw EventServerError(.forbidden, "this key may not \(role.purpose)")
        }
    }

    /// How a request shows its key.
    private static var keyForms: String { "as Authorization: Bearer KEY, or HTTP Basic with the key" }

    /// A 401 saying `message`, with the Basic challenge (a browser then asks for the key).
    private func unauthorized(_ message: String) -> EventServerError {
        EventServerError(.unauthorized, message, headers: [.wwwAuthenticate: #"Basic realm="alstats""#])
    }
}

extension AccessRole {
    /// What the role is needed for, for a 403's message.
    var purpose: String {
        switch self {
        case .write: return "send events (a write key is needed)"
        case .read: return "read the report or metrics (a read or admin key is needed)"
        case .admin: return "manage links (an admin key is needed)"
        }
    }

    /// The keys that may do what the role allows, for a 401's message: "a write key", "a read or admin key".
    var keyNeeded: String {
        switch self {
        case .write: return "a write key"
        case .read: return "a read or admin key"
        case .admin: return "an admin key"
        }
    }

    /// What the server is to a client of this role: the collector for a writer, the server for anyone else.
    var server: String { self == .write ? "collector" : "server" }
}

import Hummingbird

/// Lets a request through only when its key's role may do what `role` allows (serve.md): 401 with
/// `WWW-Authenticate: Basic realm="alstats"` without a known key, 403 for a known key of another role.
struct AccessMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: AccessKeys
    let role: AccessRole

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        switch keys.check(request.headers[.authorization], for: role) {
        case .allowed:
            return try await next(request, context)
        case .unauthenticated:
            throw EventServerError(
                .unauthorized, "a key is needed: Authorization: Bearer KEY, or HTTP Basic with the key",
                headers: [.wwwAuthenticate: #"Basic realm="alstats""#])
        case .forbidden:
            throw EventServerError(.forbidden, "this key may not \(role.purpose)")
        }
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
}

/// Everything that can go wrong in the App Links module, as one typed error.
///
/// Each case has a short, stable ``code`` (the value of the `error` field of `al_nav_out` and of our
/// `alstats_link_rejected` event) and a ``description`` that names the offending value and says what to do.
///
/// ```swift
/// do {
///     let link = try await resolver.appLink(for: pageURL)
/// } catch {
///     print(error.code)   // "http_status_404"
/// }
/// ```
public enum AppLinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `al_applink_data` is not valid JSON.
    case malformedAppLinkData(reason: String)
    /// `al_applink_data` is valid JSON but not an object.
    case appLinkDataNotAnObject
    /// `al_applink_data.version` is present but is not the string "1.0".
    case unsupportedVersion(String)
    /// The `al_applink_data` query pair has a percent escape that does not decode to UTF-8.
    case undecodableAppLinkData
    /// A URL string could not be parsed as an absolute URL.
    case invalidURL(String)
    /// The URL's scheme cannot be fetched (only `http` and `https` can).
    case unsupportedScheme(String)
    /// The server answered with a status other than 2xx.
    case httpStatus(Int)
    /// More redirects than the resolver allows.
    case tooManyRedirects(limit: Int)
    /// The page did not arrive within the time limit.
    case timedOut(seconds: Double)
    /// The page is larger than the resolver reads.
    case tooLarge(limit: Int)
    /// A network failure (connection refused, DNS, TLS, ...).
    case network(String)
    /// Extras or app-link data that cannot be written as JSON (a non-finite number, a non-object).
    case invalidExtras(String)

    /// The short reason used as the `error` event field: lowercase, underscores, stable.
    public var code: String {
        switch self {
        case .malformedAppLinkData: "malformed_json"
        case .appLinkDataNotAnObject: "not_an_object"
        case .unsupportedVersion: "unsupported_version"
        case .undecodableAppLinkData: "bad_escape"
        case .invalidURL: "invalid_url"
        case .unsupportedScheme: "unsupported_scheme"
        case .httpStatus(let status): "http_status_\(status)"
        case .tooManyRedirects: "too_many_redirects"
        case .timedOut: "timeout"
        case .tooLarge: "too_large"
        case .network: "network_error"
        case .invalidExtras: "invalid_extras"
        }
    }

    /// A one-line message that names the value and says what to do.
    public var description: String {
        switch self {
        case .malformedAppLinkData(let reason):
            "al_applink_data is not valid JSON (\(reason)); percent-encode a JSON object as its value"
        case .appLinkDataNotAnObject:
            "al_applink_data is JSON but not an object; it must be an object such as {\"target_url\":\"...\"}"
        case .unsupportedVersion(let version):
            "al_applink_data version \(version) is not supported; use \"1.0\" or leave it out"
        case .undecodableAppLinkData:
            "al_applink_data has a percent escape that is not valid UTF-8; encode the value as UTF-8"
        case .invalidURL(let string):
            "'\(string)' is not an absolute URL; give a URL with a scheme, such as https://example.com/a"
        case .unsupportedScheme(let scheme):
            "cannot fetch a '\(scheme)' URL; give an http or https page URL"
        case .httpStatus(let status):
            "the server answered HTTP \(status); check the page URL"
        case .tooManyRedirects(let limit):
            "more than \(limit) redirects; check the page URL for a redirect loop"
        case .timedOut(let seconds):
            "the page did not arrive within \(seconds) s; retry or raise the timeout"
        case .tooLarge(let limit):
            "the page is larger than \(limit) bytes; App Link meta tags belong in the head of a small page"
        case .network(let reason):
            "network error: \(reason)"
        case .invalidExtras(let reason):
            "extras or app-link data cannot be sent as JSON: \(reason)"
        }
    }
}

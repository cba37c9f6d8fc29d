import AppLinks
import Foundation

/// One answer to a GET, as the check reads it: where it came from, its status, its headers and its body.
public struct LinkCheckResponse: Sendable, Hashable {
    /// The URL that answered (after the redirects followed, if any).
    public var url: URL
    /// The HTTP status.
    public var status: Int
    /// The header fields, names lowercased, the first value of each.
    public var headers: [String: String]
    /// The body (empty for a redirect that was not followed).
    public var body: [UInt8]

    /// Creates a response.
    public init(url: URL, status: Int, headers: [String: String], body: [UInt8]) {
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The media type of `Content-Type`, lowercased, without parameters (`application/json`); `nil` without one.
    public var mediaType: String? {
        headers["content-type"].map {
            String($0.split(separator: ";").first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        }
    }
}

/// How the check gets what it reads: the HTTP client of the platform behind a seam, so that the checker itself is
/// Foundation only. On Linux it is AppLinksHTTPClient's `AsyncHTTPClientLinkCheckFetcher`, on AsyncHTTPClient, with
/// the limits and errors of the App Link resolver.
public protocol LinkCheckFetching: Sendable {
    /// GETs `url` with `headers` (the check's `User-Agent` among them).
    /// - Parameters:
    ///   - followRedirects: follow redirects as the App Link resolver does (bounded, to http and https only);
    ///     otherwise a redirect is the answer, its `Location` in its headers.
    ///   - maximumBytes: the most body bytes read.
    /// - Throws: ``AppLinkError``: `tooLarge` past `maximumBytes`, `tooManyRedirects`, `timedOut`, `network`,
    ///   `unsupportedScheme`. A status other than 2xx is an answer, not an error.
    func get(
        _ url: URL, headers: [String: String], followRedirects: Bool, maximumBytes: Int
    ) async throws(AppLinkError) -> LinkCheckResponse
}

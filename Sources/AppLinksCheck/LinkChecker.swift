import AppLinks
import Foundation
import MeasurementEvents

/// Fetches what the platforms fetch for a URL and says, per platform, whether the app will open and why not
/// (docs/check.md): iOS's apple-app-site-association and the path matching of its `components` or `paths`,
/// Android's assetlinks.json and its statements, and the page's App Link tags as an App Links client resolves them.
///
/// ```swift
/// let checker = LinkChecker(fetcher: AsyncHTTPClientLinkCheckFetcher(), userAgent: "alstats-check/0.1.0")
/// let report = await checker.check(URL(string: "https://go.example.com/l/invite")!)
/// print(report.lines.joined(separator: "\n"))
/// ```
public struct LinkChecker: Sendable {
    /// The most bytes of an apple-app-site-association that iOS reads: 128 KB.
    public static let associationFileLimit = 128 * 1_024
    /// The most bytes read of assetlinks.json and of the page: the App Link resolver's limit, 1 MiB.
    public static let pageLimit = 1 << 20

    /// How the files and the page are fetched.
    public var fetcher: any LinkCheckFetching
    /// The `User-Agent` of every request: the check says what it is (`alstats-check/VERSION`).
    public var userAgent: String

    /// A checker fetching through `fetcher` as `userAgent`.
    public init(fetcher: any LinkCheckFetching, userAgent: String) {
        self.fetcher = fetcher
        self.userAgent = userAgent
    }

    /// The verdicts for `url` (http or https). Never throws: what cannot be fetched is a reason, and a page that
    /// cannot be reached at all marks the report ``LinkCheckReport/unreachable``.
    public func check(_ url: URL) async -> LinkCheckReport {
        async let ios = appleVerdict(for: url)
        async let android = androidVerdict(for: url)
        async let page = appLinksVerdict(for: url)
        let (pageVerdict, unreachable) = await page
        return LinkCheckReport(
            url: url, ios: await ios, android: await android, appLinks: pageVerdict, unreachable: unreachable)
    }

    /// A file of the site's `/.well-known/`, fetched without following redirects, as the platforms fetch it: its
    /// JSON, or why it cannot be read (naming the file's URL).
    func associationFile(
        _ name: String, of url: URL, limit: Int, needsJSONType: Bool
    ) async -> Result<(JSONValue, LinkCheckResponse), Unreadable> {
        guard let file = Self.wellKnown(name, of: url) else {
            return .failure(Unreadable("\(url.absoluteString) has no host to fetch /.well-known/\(name) from"))
        }
        let response: LinkCheckResponse
        do throws(AppLinkError) {
            response = try await fetcher.get(
                file, headers: ["User-Agent": userAgent], followRedirects: false, maximumBytes: limit)
        } catch {
            return .failure(Unreadable(Self.fetchFailure(file, error, limit: limit)))
        }
        if (300..<400).contains(response.status) {
            let location = response.headers["location"].map { " to \($0)" } ?? ""
            return .failure(
                Unreadable(
                    "\(file.absoluteString) answers \(response.status) with a redirect\(location); the platforms "
                        + "do not follow redirects for it: serve the file itself at this URL"))
        }
        guard response.status == 200 else {
            return .failure(
                Unreadable("\(file.absoluteString) answers HTTP \(response.status): serve the file at this URL (200)"))
        }
        if needsJSONType, response.mediaType != "application/json" {
            let type = response.mediaType.map { "as \($0)" } ?? "without a Content-Type"
            return .failure(
                Unreadable("\(file.absoluteString) is served \(type): it must be Content-Type: application/json"))
        }
        do {
            return .success((try JSONValue.parse(String(decoding: response.body, as: UTF8.self)), response))
        } catch {
            return .failure(Unreadable("\(file.absoluteString) " + Self.notJSON(response, error)))
        }
    }

    /// Why a file cannot be used, in words that name it and say what to do.
    struct Unreadable: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    static func wellKnown(_ name: String, of url: URL) -> URL? {
        guard let host = url.host, !host.isEmpty else { return nil }
        var components = URLComponents()
        components.scheme = url.scheme?.lowercased() ?? "https"
        components.host = host
        components.port = url.port
        components.path = "/.well-known/" + name
        return components.url
    }

    static func fetchFailure(_ file: URL, _ error: AppLinkError, limit: Int) -> String {
        switch error {
        case .tooLarge:
            let size = limit >= 1 << 20 ? "\(limit >> 20) MiB" : "\(limit / 1_024) KB"
            return "\(file.absoluteString) is larger than \(size), more than the platform reads: make it smaller "
                + "(fewer entries, wider patterns)"
        default:
            return "\(file.absoluteString) could not be fetched: \(error.description)"
        }
    }

    static func notJSON(_ response: LinkCheckResponse, _ error: any Error) -> String {
        let start = String(decoding: response.body.prefix(64), as: UTF8.self).trimmingCharacters(in: .whitespaces)
        if response.mediaType == "text/html" || start.hasPrefix("<") {
            return "is an HTML page, not JSON: the server answers this path with a page (a catch-all route or an "
                + "error page); serve the JSON file there"
        }
        return "is not valid JSON (\(error)): check it with a JSON validator"
    }

    /// The note of an `http://` URL: the platforms fetch the association files over https only.
    static func httpNote(_ url: URL, _ platform: String) -> [String] {
        guard url.scheme?.lowercased() == "http" else { return [] }
        return ["checked over http, for local testing: \(platform) fetches this file over https only"]
    }
}

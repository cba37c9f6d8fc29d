import Hummingbird
import MeasurementEvents

/// A request's query parameters decoded as an HTML form sends them (`application/x-www-form-urlencoded`):
/// `+` is a space and `%XX` a byte; a malformed escape stays as written. Hummingbird's `queryParameters` keeps
/// `+`, so a filter value with a space that the dashboard's form submitted would never match.
enum FormParameters {
    /// The parameters of `query`, the raw query string of a request (`request.uri.query`).
    static func decode(_ query: String?) -> Parameters {
        guard let query, !query.isEmpty else { return Parameters() }
        var decoded: [(Substring, Substring)] = []
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decodeLeniently(String(parts[0]), plusAsSpace: true)
            let value = parts.count > 1 ? PercentEncoding.decodeLeniently(String(parts[1]), plusAsSpace: true) : ""
            decoded.append((Substring(name), Substring(value)))
        }
        return Parameters(decoded)
    }
}

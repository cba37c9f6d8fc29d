import AppLinks
import Foundation
import MeasurementEvents

/// One entry of an app's `components`: patterns for the URL's path (`/`), query (`?`: a pattern of the whole query,
/// or patterns of named query items) and fragment (`#`), each `*` when absent; `exclude`; and whether the patterns
/// are case-sensitive and percent-encoded (each `true` unless the entry or the file's `defaults` say otherwise).
///
/// A URL matches when every part matches. A named query item matches when every item of that name in the URL matches
/// its pattern; an item the URL lacks, or has without a value, counts as the empty string.
public struct AASAComponent: Sendable, Hashable {
    /// The query's pattern: of the whole query, or of named items.
    public enum Query: Sendable, Hashable {
        case whole(AASAPattern)
        case items([String: AASAPattern])
    }

    public var path: AASAPattern
    public var query: Query
    public var fragment: AASAPattern
    public var exclude: Bool
    public var caseSensitive: Bool
    public var percentEncoded: Bool
    /// The entry as the file gives it, for messages (`{"/":"/l/*","exclude":true}`).
    public var text: String

    /// Reads one entry of `components`; `defaults` is the file's `applinks.defaults`.
    /// - Throws: ``AppleAppSiteAssociation/Problem`` for an entry that is not an object or has a key of the wrong
    ///   type (iOS cannot use it).
    public init(json: JSONValue, defaults: JSONValue? = nil) throws(AppleAppSiteAssociation.Problem) {
        guard case .object(let object) = json else { throw .init(description: "is not an object") }
        text = json.jsonText()
        path = AASAPattern(try Self.string(object["/"], "/") ?? "*")
        fragment = AASAPattern(try Self.string(object["#"], "#") ?? "*")
        switch object["?"] {
        case nil, .null?: query = .whole(AASAPattern("*"))
        case .string(let pattern)?: query = .whole(AASAPattern(pattern))
        case .object(let items)?:
            var patterns: [String: AASAPattern] = [:]
            for item in items {
                guard let pattern = item.value.stringValue else {
                    throw .init(description: "has \"?\" item \"\(item.key)\" whose pattern is not a string")
                }
                patterns[item.key] = AASAPattern(pattern)
            }
            query = .items(patterns)
        default: throw .init(description: "has a \"?\" that is neither a pattern nor an object of query items")
        }
        exclude = try Self.flag(object["exclude"], "exclude") ?? false
        caseSensitive =
            try Self.flag(object["caseSensitive"], "caseSensitive") ?? defaults?["caseSensitive"].flatMap(Self.bool)
            ?? true
        percentEncoded =
            try Self.flag(object["percentEncoded"], "percentEncoded")
            ?? defaults?["percentEncoded"].flatMap(Self.bool) ?? true
    }

    /// Whether `url` matches every part of this entry.
    public func matches(_ url: AASAURL) -> Bool {
        func part(_ raw: String) -> String { percentEncoded ? raw : (raw.removingPercentEncoding ?? raw) }
        guard path.matches(part(url.path), caseSensitive: caseSensitive),
            fragment.matches(part(url.fragment), caseSensitive: caseSensitive)
        else { return false }
        switch query {
        case .whole(let pattern):
            return pattern.matches(part(url.query), caseSensitive: caseSensitive)
        case .items(let patterns):
            return patterns.allSatisfy { name, pattern in
                let values = url.queryItems.filter { same(part($0.name), name) }.map { part($0.value) }
                return (values.isEmpty ? [""] : values).allSatisfy { pattern.matches($0, caseSensitive: caseSensitive) }
            }
        }
    }

    private func same(_ left: String, _ right: String) -> Bool {
        caseSensitive ? left == right : left.lowercased() == right.lowercased()
    }

    private static func string(
        _ value: JSONValue?, _ key: String
    ) throws(AppleAppSiteAssociation.Problem) -> String? {
        guard let value, value != .null else { return nil }
        guard let string = value.stringValue else { throw .init(description: "has a \"\(key)\" that is not a string") }
        return string
    }

    private static func flag(_ value: JSONValue?, _ key: String) throws(AppleAppSiteAssociation.Problem) -> Bool? {
        guard let value, value != .null else { return nil }
        guard let flag = bool(value) else { throw .init(description: "has a \"\(key)\" that is not true or false") }
        return flag
    }

    private static func bool(_ value: JSONValue) -> Bool? {
        if case .bool(let flag) = value { return flag }
        return nil
    }
}

/// The parts of a URL that an association file's patterns match, as they are in the URL (percent-encoded): the path
/// (`/` when empty), the query and fragment (empty when absent) and the query's items (split at `&` and at an item's
/// first `=`; an item without `=` has an empty value).
public struct AASAURL: Sendable, Hashable {
    public var path: String
    public var query: String
    public var fragment: String
    public var queryItems: [(name: String, value: String)]

    /// The parts of `url`.
    public init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath ?? ""
        path = rawPath.isEmpty ? "/" : rawPath
        query = components?.percentEncodedQuery ?? ""
        fragment = components?.percentEncodedFragment ?? ""
        queryItems = query.split(separator: "&", omittingEmptySubsequences: true).map { item in
            guard let equals = item.firstIndex(of: "=") else { return (String(item), "") }
            return (String(item[..<equals]), String(item[item.index(after: equals)...]))
        }
    }

    /// The path, query and fragment as one text, for messages: `/l/invite?x=1#top`.
    public var display: String {
        path + (query.isEmpty ? "" : "?" + query) + (fragment.isEmpty ? "" : "#" + fragment)
    }

    public static func == (left: AASAURL, right: AASAURL) -> Bool { left.display == right.display }
    public func hash(into hasher: inout Hasher) { hasher.combine(display) }
}

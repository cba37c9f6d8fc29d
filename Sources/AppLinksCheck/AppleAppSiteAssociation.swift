import MeasurementEvents

/// The `applinks` of an apple-app-site-association file, read as iOS reads it: the apps in order (`details`), each
/// with its app IDs and either `components` (iOS 13 and later; `paths` is then ignored) or legacy `paths`, and the
/// `defaults` of the components' `caseSensitive` and `percentEncoded`.
///
/// ```swift
/// let file = try AppleAppSiteAssociation(json: JSONValue.parse(text))
/// file.apps.first?.match(AASAURL(URL(string: "https://example.com/l/invite")!))   // .matched(by: "{\"/\":\"/l/*\"}")
/// ```
public struct AppleAppSiteAssociation: Sendable, Hashable {
    /// One entry of `details`: the apps it names and the URLs it claims.
    public struct App: Sendable, Hashable {
        /// `appIDs`, or the legacy `appID`: `TEAMID.bundle.id` each.
        public var appIDs: [String]
        /// `components`, in order; `nil` when the entry has none (then ``paths`` count).
        public var components: [AASAComponent]?
        /// The legacy `paths`, in order (`NOT ` before a pattern excludes it); ignored when there are components.
        public var paths: [String]?
        /// What in the entry was skipped, and why (a component that is not an object, a key of the wrong type).
        public var skipped: [String]

        /// How this app's rules take `url`: the first component (or path) that matches decides.
        public func match(_ url: AASAURL) -> AASAMatch {
            if let components {
                for (index, component) in components.enumerated() where component.matches(url) {
                    let rule = "component \(index + 1) \(component.text)"
                    return component.exclude ? .excluded(by: rule) : .matched(by: rule)
                }
                return .unmatched(
                    rules: components.enumerated().map { "component \($0.offset + 1) \($0.element.text)" })
            }
            for path in paths ?? [] {
                let excluded = path.hasPrefix("NOT ")
                let pattern = AASAPattern(excluded ? String(path.dropFirst(4)) : path)
                guard pattern.matches(url.path) else { continue }
                return excluded ? .excluded(by: "\"\(path)\" in its paths") : .matched(by: "\"\(path)\" in its paths")
            }
            return .unmatched(rules: (paths ?? []).map { "\"\($0)\"" })
        }
    }

    /// The entries of `applinks.details`, in the file's order.
    public var apps: [App]

    /// Why a file cannot be read as an association file at all; its message names what to fix.
    public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
    }

    /// Reads the `applinks` of the file's JSON.
    /// - Throws: ``Problem`` when the value is not an object, or has no `applinks` object with a `details` list.
    public init(json: JSONValue) throws(Problem) {
        guard case .object(let root) = json else {
            throw Problem(description: "is JSON but not an object: it must be {\"applinks\": {\"details\": [...]}}")
        }
        guard case .object(let applinks)? = root["applinks"] else {
            throw Problem(
                description: "has no \"applinks\" object: universal links need {\"applinks\": {\"details\": [...]}}")
        }
        guard case .array(let details)? = applinks["details"] else {
            throw Problem(
                description: "has no \"applinks.details\" list: give one entry per app, such as "
                    + #"{"appIDs": ["TEAMID.com.example.app"], "components": [{"/": "/*"}]}"#)
        }
        let defaults = applinks["defaults"]
        apps = details.enumerated().map { index, detail in Self.app(detail, number: index + 1, defaults: defaults) }
    }

    private static func app(_ detail: JSONValue, number: Int, defaults: JSONValue?) -> App {
        var app = App(appIDs: [], components: nil, paths: nil, skipped: [])
        guard case .object(let object) = detail else {
            app.skipped.append("details entry \(number) is not an object")
            return app
        }
        if case .array(let ids)? = object["appIDs"] { app.appIDs += ids.compactMap(\.stringValue) }
        if let id = object["appID"]?.stringValue { app.appIDs.append(id) }
        if case .array(let paths)? = object["paths"] { app.paths = paths.compactMap(\.stringValue) }
        if let components = object["components"] {
            guard case .array(let items) = components else {
                app.skipped.append("\"components\" of details entry \(number) is not a list")
                return app
            }
            app.components = []
            for (index, item) in items.enumerated() {
                do throws(Problem) {
                    app.components?.append(try AASAComponent(json: item, defaults: defaults))
                } catch {
                    app.skipped.append("component \(index + 1) of details entry \(number) \(error.description)")
                }
            }
        }
        return app
    }
}

/// How an app's rules take a URL.
public enum AASAMatch: Sendable, Hashable {
    /// The rule (a component, or a legacy path) that claims it.
    case matched(by: String)
    /// The rule that excludes it (`"exclude": true`, or a `NOT` path).
    case excluded(by: String)
    /// No rule matches; `rules` lists them.
    case unmatched(rules: [String])
}

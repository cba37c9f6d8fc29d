import AppLinks
import Foundation
import MeasurementEvents

/// What ``LinkChecker`` found for one URL: per platform, whether it will open the app and why not.
///
/// `--format json` of `alstats check` is ``json``:
///
///     {"url": "...", "platforms": {
///        "ios":      {"ok": true,  "apps": ["TEAMID.bundle.id"], "reasons": [], "notes": []},
///        "android":  {"ok": false, "apps": ["com.example.app"], "reasons": ["fingerprint ..."], "notes": []},
///        "applinks": {"ok": true,  "reasons": [], "notes": [], "targets": {...}, "web": "https://..."}}}
public struct LinkCheckReport: Sendable, Hashable {
    /// The verdict of one platform.
    public struct Verdict: Sendable, Hashable {
        /// Whether the platform will open the app for the URL.
        public var ok: Bool
        /// iOS: the app IDs whose rules claim the URL, in the file's order (the first installed opens it). Android:
        /// the packages the file grants `handle_all_urls`.
        public var apps: [String]
        /// Why it will not open, each in words a developer can act on; empty when it will.
        public var reasons: [String]
        /// What is worth knowing although it does not keep the app from opening.
        public var notes: [String]

        /// A verdict: `ok` when there is no reason against it.
        public init(apps: [String] = [], reasons: [String] = [], notes: [String] = []) {
            self.ok = reasons.isEmpty
            self.apps = apps
            self.reasons = reasons
            self.notes = notes
        }
    }

    /// The page's App Link tags as an App Links client reads them.
    public struct AppLinks: Sendable, Hashable {
        /// Whether an App Links client finds an app to open: a target with a URL for some platform.
        public var verdict: Verdict
        /// The targets per device kind (`iphone`, `ipad`, `android`), in the order a navigation tries them.
        public var targets: [AppLinkPlatform: [AppLinkTarget]]
        /// The web fallback; `nil` when `al:web:should_fallback` forbids it, or the page could not be read.
        public var webURL: URL?
    }

    /// The URL checked.
    public var url: URL
    public var ios: Verdict
    public var android: Verdict
    public var appLinks: AppLinks
    /// Whether the page could not be fetched at all (no connection, no answer in time): `alstats check` exits 69.
    public var unreachable: Bool

    /// Whether every platform will open the app.
    public var opens: Bool { ios.ok && android.ok && appLinks.verdict.ok }

    /// The report as `alstats check --format json` writes it.
    public var json: JSONValue {
        func verdict(_ verdict: Verdict, apps: Bool = true) -> JSONObject {
            var object: JSONObject = ["ok": .bool(verdict.ok)]
            if apps { object["apps"] = .array(verdict.apps.map(JSONValue.string)) }
            object["reasons"] = .array(verdict.reasons.map(JSONValue.string))
            object["notes"] = .array(verdict.notes.map(JSONValue.string))
            return object
        }
        var links = verdict(appLinks.verdict, apps: false)
        links["targets"] = .object(
            JSONObject(
                [AppLinkPlatform.iphone, .ipad, .android].map { platform in
                    (platform.rawValue, .array((appLinks.targets[platform] ?? []).map(Self.json)))
                }))
        links["web"] = appLinks.webURL.map { .string($0.absoluteString) } ?? .null
        return .object([
            "url": .string(url.absoluteString),
            "platforms": .object([
                "ios": .object(verdict(ios)), "android": .object(verdict(android)), "applinks": .object(links),
            ]),
        ])
    }

    private static func json(_ target: AppLinkTarget) -> JSONValue {
        var object: JSONObject = ["url": target.url.map { .string($0.absoluteString) } ?? .null]
        for (key, value) in [
            ("app_store_id", target.appStoreId), ("package", target.package), ("class", target.className),
            ("app_name", target.appName),
        ] {
            if let value { object[key] = .string(value) }
        }
        return .object(object)
    }

    /// The report as text: the URL, then a line per platform (will open, and in what; or will not) with its reasons
    /// and notes under it.
    public var lines: [String] {
        var lines = [url.absoluteString]
        func add(_ name: String, _ verdict: Verdict, opens what: String) {
            let head = name.padding(toLength: 10, withPad: " ", startingAt: 0)
            lines.append("  " + head + (verdict.ok ? "will open " + what : "will NOT open"))
            lines += verdict.reasons.map { "    - " + $0 }
            lines += verdict.notes.map { "    note: " + $0 }
        }
        add("iOS", ios, opens: ios.apps.joined(separator: ", "))
        add("Android", android, opens: android.apps.joined(separator: ", "))
        add("App Links", appLinks.verdict, opens: targetsText)
        return lines
    }

    /// `iphone example://a (Example), android example://a (com.example.app); web https://...`.
    private var targetsText: String {
        let parts = [AppLinkPlatform.iphone, .ipad, .android].compactMap { platform -> String? in
            guard let first = appLinks.targets[platform]?.first(where: { $0.url != nil }), let url = first.url else {
                return nil
            }
            let name = first.appName ?? first.package ?? first.appStoreId
            return "\(platform.rawValue) \(url.absoluteString)" + (name.map { " (\($0))" } ?? "")
        }
        let web = appLinks.webURL.map { "; web \($0.absoluteString)" } ?? "; no web fallback"
        return parts.joined(separator: ", ") + web
    }
}

import Foundation
import MeasurementEvents

/// An outbound navigation to an AppLink: picks the first target the device can open, else the web URL,
/// appends `al_applink_data`, opens it through the host, and reports `al_nav_out`.
///
/// The host supplies two functions: `canOpen` (is an app for this URL installed?) and `open` (open it;
/// did it work?). Schemes compare case-insensitively; targets without a URL are skipped. The opened URL
/// is the target URL plus `al_applink_data`: the caller's ``appLinkData`` first, then `target_url` (the
/// page URL), `version` "1.0" and `user_agent` unless the caller set them, `extras` and, when the host
/// describes itself, `referer_app_link`. The JSON is percent-encoded so that only RFC 3986 unreserved
/// characters stay raw, so `&`, `=`, `+`, `#` in values survive.
///
/// ```swift
/// let navigation = AppLinkNavigation(
///     appLink: link, extras: ["fb_app_id": 42], appLinkData: ["ref": "feed"],
///     referer: AppLinkReferer(url: "news://back", appName: "News"))
/// let result = navigation.navigate(
///     canOpen: { UIApplication.shared.canOpenURL($0) },
///     open: { UIApplication.shared.open($0); return true })
/// ```
public struct AppLinkNavigation: Sendable {
    /// The user agent written into `al_applink_data` unless the caller sets one.
    public static let defaultUserAgent = "alstats AppLinks 1.0"

    /// The App Link to navigate to.
    public var appLink: AppLink
    /// `al_applink_data.extras`; must be a JSON object (`{}` by default).
    public var extras: JSONValue
    /// App-link data of the caller (for example `ref`), written first.
    public var appLinkData: JSONObject
    /// The calling app, written as `referer_app_link` so that the target can offer a way back.
    public var referer: AppLinkReferer?
    /// The `user_agent` written unless ``appLinkData`` has one.
    public var userAgent: String

    /// For a back link: the app returned to and the inbound `ref`; the event is then `al_ref_back_out`.
    var backTo: (appName: String, ref: String?)?

    /// Creates a navigation.
    /// - Parameters:
    ///   - appLink: where to go.
    ///   - extras: `al_applink_data.extras`; an object, `{}` by default.
    ///   - appLinkData: more members of `al_applink_data`, written first (for example `["ref": "feed"]`).
    ///   - referer: the host app (`app_name`, back `url`), or `nil`.
    ///   - userAgent: the `user_agent` member unless `appLinkData` sets one.
    public init(
        appLink: AppLink, extras: JSONValue = .object(JSONObject()), appLinkData: JSONObject = JSONObject(),
        referer: AppLinkReferer? = nil, userAgent: String = AppLinkNavigation.defaultUserAgent
    ) {
        self.appLink = appLink
        self.extras = extras
        self.appLinkData = appLinkData
        self.referer = referer
        self.userAgent = userAgent
    }

    /// The dry run: which target would be chosen and the URL that would be opened, assuming the open works.
    /// Opens nothing and posts nothing.
    /// - Parameter canOpen: whether the device has an app for a URL.
    public func plan(canOpen: (URL) -> Bool) -> AppLinkNavigationResult {
        let payload: JSONObject
        switch payloadJSON() {
        case .success(let object): payload = object
        case .failure(let error): return failure(error.code)
        }
        for target in appLink.targets {
            guard let url = target.url, canOpen(url) else { continue }
            guard let output = AppLinkNavigation.url(url, appending: payload) else {
                return failure(AppLinkError.invalidURL(url.absoluteString).code)
            }
            return result(type: .app, url: output, target: target)
        }
        if let web = appLink.webURL {
            guard let output = AppLinkNavigation.url(web, appending: payload) else {
                return failure(AppLinkError.invalidURL(web.absoluteString).code)
            }
            return result(type: .web, url: output, target: nil)
        }
        let hasTargets = appLink.targets.contains { $0.url != nil }
        return failure(hasTargets ? "no_installed_target" : "no_target")
    }

    /// Navigates: chooses as ``plan(canOpen:)`` does, opens the URL with `open`, and posts the event
    /// (`al_nav_out`, or `al_ref_back_out` for a back link) whatever happened.
    /// - Parameters:
    ///   - canOpen: whether the device has an app for a URL.
    ///   - open: opens a URL; returns whether it worked (a `false` makes the attempt fail with `open_failed`).
    ///   - bus: where to post; by default ``MeasurementEventBus/shared``.
    /// - Returns: what happened, with the event that was posted.
    @discardableResult
    public func navigate(
        canOpen: (URL) -> Bool, open: (URL) -> Bool, on bus: MeasurementEventBus = .shared
    ) -> AppLinkNavigationResult {
        var outcome = plan(canOpen: canOpen)
        if let url = outcome.url, !open(url) { outcome = failure("open_failed") }
        bus.post(outcome.event.name, fields: outcome.event.fields)
        return outcome
    }

    /// The `al_applink_data` object this navigation sends, or why it cannot be sent.
    public func payloadJSON() -> Result<JSONObject, AppLinkError> {
        guard case .object = extras else { return .failure(.invalidExtras("extras must be a JSON object")) }
        var data = appLinkData
        if data["target_url"] == nil { data["target_url"] = .string(appLink.sourceURL.absoluteString) }
        if data["version"] == nil { data["version"] = "1.0" }
        if data["user_agent"] == nil { data["user_agent"] = .string(userAgent) }
        data["extras"] = extras
        if let referer { data["referer_app_link"] = referer.json }
        guard AppLinkNavigation.isWritable(.object(data)) else {
            return .failure(.invalidExtras("a number is not finite (NaN or infinity)"))
        }
        return .success(data)
    }

    /// `url` with `al_applink_data=<strictly encoded JSON>` added to its query (before any fragment).
    public static func url(_ url: URL, appending data: JSONObject) -> URL? {
        let text = url.absoluteString
        let hash = text.firstIndex(of: "#")
        var base = String(text[..<(hash ?? text.endIndex)])
        let fragment = hash.map { String(text[$0...]) } ?? ""
        if base.contains("?") {
            if !base.hasSuffix("?") && !base.hasSuffix("&") { base += "&" }
        } else {
            base += "?"
        }
        base += AppLinkURL.appLinkDataKey + "=" + QueryParameters.encode(JSONValue.object(data).jsonText())
        return URL(string: base + fragment)
    }

    static func isWritable(_ value: JSONValue) -> Bool {
        switch value {
        case .double(let number): number.isFinite
        case .array(let values): values.allSatisfy(isWritable)
        case .object(let object): object.allSatisfy { isWritable($0.value) }
        default: true
        }
    }

    // MARK: Events

    func result(type: NavigationType, url: URL, target: AppLinkTarget?) -> AppLinkNavigationResult {
        var fields = baseFields(success: true, type: type)
        fields[FieldName.outputURL] = url.absoluteString
        fields[FieldName.outputURLScheme] = url.scheme
        return AppLinkNavigationResult(
            type: type, url: url, target: target, error: nil, event: AppLinkEvent(name: eventName, fields: fields))
    }

    func failure(_ error: String) -> AppLinkNavigationResult {
        var fields = baseFields(success: false, type: .fail)
        fields[FieldName.error] = error
        return AppLinkNavigationResult(
            type: .fail, url: nil, target: nil, error: error, event: AppLinkEvent(name: eventName, fields: fields))
    }

    var eventName: String { backTo == nil ? EventName.navOut : EventName.refBackOut }

    func baseFields(success: Bool, type: NavigationType) -> [String: String] {
        var fields = AppLinkNavigation.sourceFields(appLink.sourceURL)
        fields[FieldName.success] = success ? "1" : "0"
        fields[FieldName.type] = type.rawValue
        fields[FieldName.version] = "1.0"
        if let backTo {
            fields[FieldName.refererAppName] = backTo.appName
            fields[FieldName.ref] = backTo.ref
        } else if let ref = appLinkData["ref"]?.stringValue, !ref.isEmpty {
            fields[FieldName.ref] = ref
        } else {
            fields[FieldName.ref] = AppLinkURL.ref(in: RawURL(appLink.sourceURL.absoluteString).queryParameters)
        }
        return fields
    }

    static func sourceFields(_ sourceURL: URL) -> [String: String] {
        var fields = [FieldName.sourceURL: sourceURL.absoluteString]
        fields[FieldName.sourceURLHost] = RawURL(sourceURL.absoluteString).host
        return fields
    }
}

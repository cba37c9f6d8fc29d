import MeasurementEvents

/// The URL that opened the app, parsed by the App Links rules: what the host should show and what it
/// would report.
///
/// Parsing never fails and never traps: a malformed `al_applink_data` makes the URL a plain deep link
/// (``isAppLink`` is `false`, ``targetURL`` is ``inputURL``) and leaves the reason in ``rejection``.
/// Parsing runs on the raw text (see ``RawURL`` and ``QueryParameters``), not on Foundation's URL.
///
/// - `al_applink_data` must decode to a JSON object whose `version` is "1.0" or absent;
/// - `target_url` is used when it is a string that is an absolute URL (``RawURL/isAbsolute``);
/// - `extras` is kept only when it is an object; the referer only when `url` and `app_name` are strings;
/// - a legacy `fb<APPID>://authorize` link merges its fragment parameters over its query parameters and
///   is an App Link when it has a `target_url`;
/// - ``ref`` is `al_applink_data.ref` (a non-empty string), else the target URL's `ref` (or the first item
///   of a legacy `fb_ref=a,b` list), else the input URL's.
///
/// ```swift
/// let link = AppLinkURL(parsing: "example://p?al_applink_data=%7B%22target_url%22%3A%22https%3A%2F%2Fexample.com%2Fa%22%7D")
/// link.isAppLink      // true
/// link.targetURL      // "https://example.com/a"
/// link.recordOpen(sourceApplication: "com.facebook.Facebook")   // posts al_nav_in on MeasurementEventBus.shared
/// ```
public struct AppLinkURL: Sendable, Hashable {
    /// The whole URL that opened the app, as given.
    public let inputURL: String
    /// The scheme of ``inputURL``, as written.
    public let inputURLScheme: String?
    /// The query parameters of ``inputURL`` (for a legacy `authorize` link: fragment merged over query).
    public let inputQueryParameters: [String: String]
    /// The URL of the content to show: `al_applink_data.target_url` (or the legacy `target_url`) when it is
    /// an absolute URL, else ``inputURL``.
    public let targetURL: String
    /// The query parameters of ``targetURL``.
    public let targetQueryParameters: [String: String]
    /// The decoded `al_applink_data` object; `nil` for a plain deep link or a legacy link.
    public let appLinkData: JSONObject?
    /// `al_applink_data.extras` when it is an object.
    public let appLinkExtras: JSONObject?
    /// The referring app (the back link), when `referer_app_link` has string `url` and `app_name`.
    public let appLinkReferer: AppLinkReferer?
    /// The category breadcrumb (see the type's documentation for the precedence).
    public let ref: String?
    /// Whether the URL is an App Link (valid `al_applink_data`, or a legacy `authorize` link with `target_url`).
    public let isAppLink: Bool
    /// Whether the URL is a legacy `fb<APPID>://authorize` link.
    public let isLegacyLink: Bool
    /// Why a URL that carried `al_applink_data` was not taken as an App Link; `nil` otherwise.
    public let rejection: AppLinkError?

    /// Parses the URL that opened the app.
    /// - Parameter inputURL: the URL's text, exactly as the system passed it.
    public init(parsing inputURL: String) {
        self.inputURL = inputURL
        let raw = RawURL(inputURL)
        inputURLScheme = raw.scheme

        let legacy = AppLinkURL.isLegacyAuthorize(raw)
        var parameters = raw.queryParameters
        var undecodable = raw.query.map { QueryParameters.keysWithUndecodableValues($0) } ?? []
        if legacy, let fragment = raw.fragment {
            parameters.merge(QueryParameters.parse(fragment)) { _, fragmentValue in fragmentValue }
            undecodable.formUnion(QueryParameters.keysWithUndecodableValues(fragment))
        }
        inputQueryParameters = parameters

        var data: JSONObject?
        var rejection: AppLinkError?
        if let text = parameters[AppLinkURL.appLinkDataKey] {
            switch AppLinkURL.decodeAppLinkData(text) {
            case .success(let object): data = object
            case .failure(let error): rejection = error
            }
        } else if undecodable.contains(AppLinkURL.appLinkDataKey) {
            rejection = .undecodableAppLinkData
        }

        var target = inputURL
        var isAppLink = false
        var isLegacyLink = false
        if let data {
            isAppLink = true
            if let string = data["target_url"]?.stringValue, RawURL(string).isAbsolute { target = string }
        } else if legacy, let string = parameters["target_url"] {
            isAppLink = true
            isLegacyLink = true
            if RawURL(string).isAbsolute { target = string }
        }
        self.isAppLink = isAppLink
        self.isLegacyLink = isLegacyLink
        self.rejection = isAppLink ? nil : rejection
        appLinkData = data
        appLinkExtras = data?["extras"]?.objectValue
        appLinkReferer = AppLinkReferer(json: data?["referer_app_link"])
        targetURL = target
        targetQueryParameters = target == inputURL ? parameters : RawURL(target).queryParameters

        if let dataRef = data?["ref"]?.stringValue, !dataRef.isEmpty {
            ref = dataRef
        } else {
            ref = AppLinkURL.ref(in: targetQueryParameters) ?? AppLinkURL.ref(in: parameters)
        }
    }

    /// The query parameter that carries App Link data.
    public static let appLinkDataKey = "al_applink_data"

    /// Decodes the text of `al_applink_data` to an object with version "1.0" or none.
    static func decodeAppLinkData(_ text: String) -> Result<JSONObject, AppLinkError> {
        let value: JSONValue
        do {
            value = try JSONValue.parse(text)
        } catch {
            return .failure(.malformedAppLinkData(reason: error.reason))
        }
        guard case .object(let object) = value else { return .failure(.appLinkDataNotAnObject) }
        if let version = object["version"] {
            guard version == .string("1.0") else { return .failure(.unsupportedVersion(version.jsonText())) }
        }
        return .success(object)
    }

    /// `fb` + digits as scheme (any case) and `authorize` as host.
    static func isLegacyAuthorize(_ raw: RawURL) -> Bool {
        guard let scheme = raw.scheme?.lowercased(), scheme.hasPrefix("fb"), scheme.count > 2,
            scheme.dropFirst(2).allSatisfy({ $0.isASCII && $0.isNumber })
        else { return false }
        return raw.host == "authorize"
    }

    /// `ref` when non-empty, else the first item of a legacy `fb_ref` comma list.
    static func ref(in parameters: [String: String]) -> String? {
        if let ref = parameters["ref"], !ref.isEmpty { return ref }
        if let list = parameters["fb_ref"],
            let first = list.split(separator: ",", omittingEmptySubsequences: false).first,
            !first.isEmpty
        {
            return String(first)
        }
        return nil
    }
}

/// One App Links measurement event: a name, flat string fields, a time and a unique id.
///
/// Events are values. The bus assigns ``id`` and ``timestamp`` when an event is posted;
/// ingest keeps the ones it reads from NDJSON.
///
/// ```swift
/// let event = MeasurementEvent(name: EventName.navOut, fields: [FieldName.success: "1", FieldName.type: "app"])
/// ```
public struct MeasurementEvent: Sendable, Hashable {
    /// The unique, time-ordered identity of the event; the same id means the same event.
    public var id: EventID
    /// The event name, for example ``EventName/navIn`` (`al_nav_in`), or any name a host posts.
    public var name: String
    /// The flattened fields (see ``Flattener``), keyed by the exact App Links field names.
    public var fields: [String: String]
    /// When the event happened, in milliseconds since the Unix epoch (UTC).
    public var timestamp: Int64

    /// Creates an event.
    /// - Parameters:
    ///   - id: its identity; by default a fresh ``EventID`` (the bus replaces it at post).
    ///   - name: the event name.
    ///   - fields: flat string fields.
    ///   - timestamp: milliseconds since the Unix epoch (UTC); by default 0 (the bus sets it at post).
    public init(id: EventID = EventID(), name: String, fields: [String: String] = [:], timestamp: Int64 = 0) {
        self.id = id
        self.name = name
        self.fields = fields
        self.timestamp = timestamp
    }
}

/// The event names of the App Links measurement-event catalogue (docs/events.md).
public enum EventName {
    /// An inbound URL was recognised as an App Link (or a legacy `fb<APPID>://authorize` link) and opened.
    public static let navIn = "al_nav_in"
    /// An outbound navigation to an App Link was attempted (success or failure).
    public static let navOut = "al_nav_out"
    /// A navigation back to the referring app was attempted.
    public static let refBackOut = "al_ref_back_out"

    /// Our own event for a link that carried `al_applink_data` but was rejected (malformed JSON, not an
    /// object, another version); its `error` field says why. Reports count it under completeness.
    public static let linkRejected = "alstats_link_rejected"

    /// The install path (docs/install.md): a tap on a hosted link's store button, recorded by `alstats serve`.
    public static let linkStore = "alstats_link_store"
    /// The install path: an installed app's claim of a click, recorded by `alstats serve` once per click.
    public static let linkInstall = "alstats_link_install"
    /// The install path: an app's first open after its install, posted by the app once (`AppInstall`).
    public static let firstOpen = "alstats_first_open"

    /// The three App Links event names, in catalogue order.
    public static let appLinks: [String] = [navIn, navOut, refBackOut]
}

/// The field names of the App Links events, exactly as the published documentation spells them.
public enum FieldName {
    // al_nav_in
    /// The whole URL that opened the app.
    public static let inputURL = "inputURL"
    /// The scheme of ``inputURL``.
    public static let inputURLScheme = "inputURLScheme"
    /// `al_applink_data.target_url`, or the input URL.
    public static let targetURL = "targetURL"
    /// `al_applink_data.referer_app_link.url`.
    public static let refererURL = "refererURL"
    /// `al_applink_data.referer_app_link.app_name`; on `al_ref_back_out`, the app returned to.
    public static let refererAppName = "refererAppName"
    /// The bundle id of the app that opened this one.
    public static let sourceApplication = "sourceApplication"
    /// The App Links data version, "1.0".
    public static let version = "version"

    // al_nav_out and al_ref_back_out
    /// The URL actually opened, including its `al_applink_data`.
    public static let outputURL = "outputURL"
    /// The scheme of ``outputURL``.
    public static let outputURLScheme = "outputURLScheme"
    /// The URL of the page whose App Link metadata was used (for a back link: the referer URL).
    public static let sourceURL = "sourceURL"
    /// The host of ``sourceURL``.
    public static let sourceURLHost = "sourceURLHost"
    /// "1" when an app or the web fallback was opened, "0" otherwise.
    public static let success = "success"
    /// "app", "web" or "fail".
    public static let type = "type"
    /// A short reason, only when the attempt failed or had an error.
    public static let error = "error"

    // ours, on all three
    /// The category breadcrumb of the link.
    public static let ref = "ref"

    // ours, on al_nav_in
    /// "1" on the `al_nav_in` of an app opened on a deferred link: the link a person clicked before installing it
    /// (docs/install.md).
    public static let deferred = "deferred"
}

/// The values of the `type` field of `al_nav_out` and `al_ref_back_out`.
public enum NavigationType: String, Sendable, CaseIterable {
    /// An app was opened.
    case app
    /// The web fallback was opened in a browser.
    case web
    /// Nothing was opened.
    case fail
}

extension MeasurementEvent {
    /// Whether the event's name, id, a field's name or a field's value holds the character U+0000 (NUL, which JSON
    /// writes `\u0000`). PostgreSQL's text cannot hold it, so the collector and ingest refuse such an event on every
    /// backend (`nul_character`, docs/http-api.md) rather than have one store keep what the other refuses.
    public var holdsNUL: Bool {
        if name.utf8.contains(0) { return true }
        if case .text(let text) = id.storage, text.utf8.contains(0) { return true }
        return fields.contains { $0.key.utf8.contains(0) || $0.value.utf8.contains(0) }
    }
}

import MeasurementEvents

/// Names of the events the App Links module posts beyond the App Links catalogue.
public enum AppLinkEventName {
    /// `alstats_link_rejected`: an inbound URL carried `al_applink_data` but was not taken as an App Link
    /// (malformed JSON, not an object, an unsupported version, a broken escape). Fields: `error` (the
    /// ``AppLinkError/code``: `malformed_json`, `not_an_object`, `unsupported_version`, `bad_escape`) and
    /// `inputURL`. Posted by ``AppLinkURL/recordOpen(sourceApplication:on:)`` so that broken links are
    /// counted in the report instead of disappearing.
    public static let linkRejected = EventName.linkRejected
}

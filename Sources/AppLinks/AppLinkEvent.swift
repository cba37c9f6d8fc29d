/// An event the App Links code posts (or, in a dry run, would post): a name and flat string fields.
///
/// ```swift
/// let event = AppLinkURL(parsing: url).event(sourceApplication: "com.example")
/// event?.name            // "al_nav_in"
/// event?.fields["ref"]   // "feed"
/// ```
public struct AppLinkEvent: Sendable, Hashable {
    /// The event name (`al_nav_in`, `al_nav_out`, `al_ref_back_out`, `alstats_link_rejected`).
    public var name: String
    /// The fields, named as in docs/events.md.
    public var fields: [String: String]

    /// Creates an event description.
    public init(name: String, fields: [String: String]) {
        self.name = name
        self.fields = fields
    }
}

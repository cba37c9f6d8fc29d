import MeasurementEvents

extension AppLinkURL {
    /// The event the host reports when it opens this URL: `al_nav_in` for an App Link,
    /// `alstats_link_rejected` for a rejected one, `nil` for a plain deep link.
    ///
    /// ```swift
    /// AppLinkURL(parsing: url).event(sourceApplication: "com.example.news")?.name   // "al_nav_in"
    /// ```
    /// - Parameter sourceApplication: the bundle id of the app that opened this one, when known.
    /// - Returns: the event name and its fields (docs/events.md), not yet posted.
    public func event(sourceApplication: String? = nil) -> AppLinkEvent? {
        if isAppLink {
            var fields: [String: String] = [
                FieldName.inputURL: inputURL,
                FieldName.targetURL: targetURL,
                FieldName.version: "1.0",
            ]
            fields[FieldName.inputURLScheme] = inputURLScheme
            fields[FieldName.refererURL] = appLinkData?["referer_app_link"]?["url"]?.stringValue
            fields[FieldName.refererAppName] = appLinkData?["referer_app_link"]?["app_name"]?.stringValue
            fields[FieldName.sourceApplication] = sourceApplication
            fields[FieldName.ref] = ref
            return AppLinkEvent(name: EventName.navIn, fields: fields)
        }
        if let rejection {
            return AppLinkEvent(
                name: AppLinkEventName.linkRejected,
                fields: [FieldName.error: rejection.code, FieldName.inputURL: inputURL])
        }
        return nil
    }

    /// Reports that the host opened this URL: posts `al_nav_in` for an App Link (fields `inputURL`,
    /// `inputURLScheme`, `targetURL`, `refererURL`, `refererAppName`, `sourceApplication`, `version`,
    /// `ref`), `alstats_link_rejected` for a URL whose `al_applink_data` was rejected, nothing for a plain
    /// deep link.
    ///
    /// ```swift
    /// let link = AppLinkURL(parsing: openedURL.absoluteString)
    /// link.recordOpen(sourceApplication: sourceApplication)
    /// ```
    /// - Parameters:
    ///   - sourceApplication: the bundle id of the app that opened this one, as the system gave it.
    ///   - bus: where to post; by default ``MeasurementEventBus/shared``.
    public func recordOpen(sourceApplication: String? = nil, on bus: MeasurementEventBus = .shared) {
        guard let event = event(sourceApplication: sourceApplication) else { return }
        bus.post(event.name, fields: event.fields)
    }
}

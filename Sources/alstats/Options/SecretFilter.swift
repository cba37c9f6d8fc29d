import MeasurementEvents

/// Replaces secret values with `REDACTED` in what the link debugger prints, unless `--show-secrets`.
///
/// The rules (which keys are secret, in fields, URLs and embedded `al_applink_data`) belong to
/// `MeasurementEvents.Redactor`, which is written on another branch. Until it is merged, these methods
/// pass values through unchanged; each body is where the matching `Redactor` call goes:
/// `Redactor().redact(urlString:)`, `redact(fields:)`, `redact(json:)`.
struct SecretFilter {
    var showSecrets: Bool

    /// A URL with secret query and fragment values (and those inside `al_applink_data`) redacted.
    func url(_ string: String) -> String {
        guard !showSecrets else { return string }
        return string  // Redactor: Redactor().redact(urlString: string)
    }

    /// Flat fields (query parameters, event fields) with secret values redacted.
    func fields(_ fields: [String: String]) -> [String: String] {
        guard !showSecrets else { return fields }
        return fields  // Redactor: Redactor().redact(fields: fields)
    }

    /// A JSON value (app-link data, extras) with secret members redacted, at any depth.
    func json(_ value: JSONValue) -> JSONValue {
        guard !showSecrets else { return value }
        return value  // Redactor: Redactor().redact(json: value)
    }
}

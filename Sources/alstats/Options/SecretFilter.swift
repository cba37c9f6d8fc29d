import MeasurementEvents

/// Replaces secret values with `REDACTED` in what the link debugger prints, unless `--show-secrets`.
///
/// The rules (which keys are secret; in fields, in URL queries and fragments, inside embedded
/// `al_applink_data` whatever its percent-encoding) are `MeasurementEvents.Redactor`'s, the same that
/// guard storage, so the terminal shows what the database would keep.
struct SecretFilter {
    var showSecrets: Bool
    private let redactor = Redactor()

    init(showSecrets: Bool) {
        self.showSecrets = showSecrets
    }

    /// A URL with secret query and fragment values (and those inside `al_applink_data`) redacted.
    func url(_ string: String) -> String {
        showSecrets ? string : redactor.redact(urlString: string)
    }

    /// Flat fields (query parameters, event fields) with secret values redacted.
    func fields(_ fields: [String: String]) -> [String: String] {
        showSecrets ? fields : redactor.redact(fields: fields)
    }

    /// A JSON value (app-link data, extras) with secret members redacted, at any depth.
    func json(_ value: JSONValue) -> JSONValue {
        showSecrets ? value : redactor.redact(json: value)
    }
}

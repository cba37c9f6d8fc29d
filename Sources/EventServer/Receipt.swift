import MeasurementEvents

/// The answer to a batch of events (docs/http-api.md, "The receipt"):
/// `{"accepted": 98, "duplicates": 1, "rejected": 1, "errors": [{"line": 7, "reason": "missing ts"}],
/// "warnings": []}`.
///
/// `warnings` names the fields of stored events whose names look misspelt, at most ``Intake/maximumWarnings``:
/// `{"line": 3, "field": "referer_app", "did_you_mean": "refererAppName"}`. Their events are stored as sent, the
/// field among the extras; the warning says which catalogue name (docs/events.md) was probably meant.
struct Receipt: Sendable, Hashable {
    /// Events newly stored.
    var accepted: Int
    /// Events whose id was already stored: acknowledged, not stored twice.
    var duplicates: Int
    /// Lines (or calls) not stored, with their 1-based positions and reasons.
    var rejections: [Intake.Rejection]
    /// Fields of stored events whose names are near misses of catalogue names.
    var warnings: [Intake.Warning] = []

    /// Whether lines were sent and none was accepted or a duplicate.
    var allRejected: Bool { accepted + duplicates == 0 && !rejections.isEmpty }

    /// The receipt's JSON; with `success`, Segment's `{"success": ...}` first.
    func json(success: Bool? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let success { members.append(("success", .bool(success))) }
        members += [
            ("accepted", .int(Int64(accepted))), ("duplicates", .int(Int64(duplicates))),
            ("rejected", .int(Int64(rejections.count))),
            (
                "errors",
                .array(
                    rejections.map {
                        .object(JSONObject([("line", .int(Int64($0.line))), ("reason", .string($0.reason))]))
                    })
            ),
            (
                "warnings",
                .array(
                    warnings.map {
                        .object(
                            JSONObject([
                                ("line", .int(Int64($0.line))), ("field", .string($0.field)),
                                ("did_you_mean", .string($0.didYouMean)),
                            ]))
                    })
            ),
        ]
        return .object(JSONObject(members))
    }
}

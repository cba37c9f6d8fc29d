import MeasurementEvents

/// The answer to a batch of events (docs/http-api.md, "The receipt"):
/// `{"lines": 100, "accepted": 98, "duplicates": 1, "rejected": 1,
/// "errors": [{"line": 7, "code": "missing_ts", "reason": "\"ts\" is missing"}], "warnings": []}`.
///
/// `lines` counts the lines (or Segment calls) read from the body: every one is accepted, a duplicate,
/// rejected or (Segment's `identify`, `group`, `alias`) ignored. Each error carries a stable snake_case `code`
/// for programs beside the `reason` for people.
///
/// `warnings` names the fields of stored events whose names look misspelt, at most ``Intake/maximumWarnings``:
/// `{"line": 3, "field": "referer_app", "did_you_mean": "refererAppName"}`. Their events are stored as sent, the
/// field among the extras; the warning says which catalogue name (docs/events.md) was probably meant.
struct Receipt: Sendable, Hashable {
    /// The lines (or calls) read from the body.
    var lines: Int
    /// Events newly stored.
    var accepted: Int
    /// Events whose id was already stored: acknowledged, not stored twice.
    var duplicates: Int
    /// Lines (or calls) not stored, with their 1-based positions and reasons.
    var rejections: [Intake.Rejection]
    /// Fields of stored events whose names are near misses of catalogue names.
    var warnings: [Intake.Warning] = []
    /// Segment calls acknowledged and not stored (`identify`, `group`, `alias`): counted in `lines`, and listed in
    /// Segment's answers so that `lines` = accepted + duplicates + rejected + ignored there too.
    var ignored = 0

    /// Whether lines were sent and none was accepted or a duplicate.
    var allRejected: Bool { accepted + duplicates == 0 && !rejections.isEmpty }

    /// The text of ``json(success:)`` for a receipt of `lines` lines of which none was stored, each at `numbers`
    /// rejected with `code` and the same `reason` (a 429's): written straight, not built value by value, so that
    /// refusing a flood costs little.
    static func allRejectedText(
        lines: Int, numbers: [Int], code: String, reason: String, success: Bool? = nil
    ) -> String {
        let tail =
            #","code":\#(JSONValue.string(code).jsonText()),"reason":\#(JSONValue.string(reason).jsonText())}"#
        var text = success.map { #"{"success":\#($0),"# } ?? "{"
        text += #""lines":\#(lines),"accepted":0,"duplicates":0,"rejected":\#(numbers.count),"#
        if success != nil { text += #""ignored":0,"# }
        text += #""errors":["#
        text.reserveCapacity(text.utf8.count + numbers.count * (tail.utf8.count + 16) + 20)
        for (index, number) in numbers.enumerated() {
            text += index == 0 ? #"{"line":"# : #",{"line":"#
            text += String(number)
            text += tail
        }
        return text + #"],"warnings":[]}"#
    }

    /// The receipt's JSON; with `success`, Segment's `{"success": ...}` first.
    func json(success: Bool? = nil) -> JSONValue {
        var members: [(String, JSONValue)] = []
        if let success { members.append(("success", .bool(success))) }
        members += [
            ("lines", .int(Int64(lines))), ("accepted", .int(Int64(accepted))), ("duplicates", .int(Int64(duplicates))),
            ("rejected", .int(Int64(rejections.count))),
        ]
        if success != nil { members.append(("ignored", .int(Int64(ignored)))) }
        members += [
            (
                "errors",
                .array(
                    rejections.map {
                        .object(
                            JSONObject([
                                ("line", .int(Int64($0.line))), ("code", .string($0.code)),
                                ("reason", .string($0.reason)),
                            ]))
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

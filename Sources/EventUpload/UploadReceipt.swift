import Foundation
import MeasurementEvents

/// The collector's answer to `POST /v1/events` (docs/http-api.md, "The receipt"):
///
///     {"accepted": 98, "duplicates": 1, "rejected": 1, "lines": 100,
///      "errors": [{"line": 7, "code": "missing_ts", "reason": "the line has no ts"}]}
///
/// A receipt of an older collector, without `lines` or `code`, still reads.
public struct UploadReceipt: Sendable, Hashable {
    /// One rejected line.
    public struct LineError: Sendable, Hashable {
        /// The line's 1-based number in the request.
        public var line: Int
        /// Why the collector did not store it.
        public var reason: String
    }

    /// Events newly stored.
    public var accepted: Int
    /// Events whose id was already stored (acknowledged, not stored twice).
    public var duplicates: Int
    /// Lines not stored.
    public var rejected: Int
    /// The rejected lines.
    public var errors: [LineError]
    /// How many lines of the body the collector read, when it says (`lines`); the uploader takes a receipt for
    /// another number of lines than it sent as no answer, and sends the batch again.
    public var lines: Int?

    /// Reads a receipt; `nil` when `body` is not one (the counts are required, `errors` may be absent).
    public init?(body: Data) {
        guard let text = String(data: body, encoding: .utf8), case .object(let object)? = try? JSONValue.parse(text)
        else { return nil }
        func count(_ key: String) -> Int? {
            guard case .int(let value)? = object[key], value >= 0, value <= Int64(Int32.max) else { return nil }
            return Int(value)
        }
        guard let accepted = count("accepted"), let duplicates = count("duplicates") else { return nil }
        self.accepted = accepted
        self.duplicates = duplicates
        var errors: [LineError] = []
        if case .array(let items)? = object["errors"] {
            for item in items {
                guard case .int(let line)? = item["line"], line > 0, line <= Int64(Int32.max) else { continue }
                // A machine-readable `code`, when the collector gives one, names the reason better than its text.
                let reason = item["code"]?.stringValue ?? item["reason"]?.stringValue ?? "unknown"
                errors.append(LineError(line: Int(line), reason: reason))
            }
        }
        self.errors = errors
        rejected = count("rejected") ?? errors.count
        lines = count("lines")
    }

    /// The drop reason of a rejected line: `upload_rejected:` and the collector's reason in snake_case, at most
    /// 64 bytes of it (`missing ts` → `upload_rejected:missing_ts`).
    public static func dropReason(_ reason: String) -> DropReason {
        var name = ""
        for scalar in reason.lowercased().unicodeScalars {
            if name.utf8.count >= 64 { break }
            let allowed = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            if allowed {
                name.unicodeScalars.append(scalar)
            } else if !name.isEmpty, !name.hasSuffix("_") {
                name += "_"
            }
        }
        while name.hasSuffix("_") { name.removeLast() }
        return DropReason(rawValue: "upload_rejected:" + (name.isEmpty ? "unknown" : name))
    }
}

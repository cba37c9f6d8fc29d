import EventStoreInterface
import MeasurementEvents
import NIOCore

/// Segment's HTTP Tracking API (docs/http-api.md, "Segment and RudderStack"): `track` is stored under its `event`
/// name, `screen` and `page` under their type with the field `name`; `properties` are flattened (docs/events.md),
/// `context.app.name` becomes the field `app`; `userId`, `anonymousId`, `traits` and the rest of `context`
/// are not stored. `identify`, `group` and `alias` are acknowledged, counted, and not stored.
///
/// Time: `timestamp + (receivedAt - sentAt)` when the call or its batch has `sentAt` (the client's clock
/// corrected, as Segment does), `timestamp` alone without it, `receivedAt` without a `timestamp`.
extension Intake {
    /// The call types that are acknowledged and not stored.
    static let ignoredSegmentTypes: Set<String> = ["identify", "group", "alias"]

    /// Reads `{"batch": [...], "sentAt": ...}`; each call's rejection names its 1-based position in `batch`.
    /// - Throws: ``EventServerError`` (400) when the body is not JSON or has no `batch` array.
    static func segmentBatch(
        _ body: ByteBuffer, receivedAt: Int64, flattener: Flattener
    ) throws(EventServerError) -> Intake {
        let object = try segmentObject(body)
        guard case .array(let calls)? = object["batch"] else {
            throw EventServerError(.badRequest, "a Segment batch must be an object with a \"batch\" array")
        }
        let sentAt = object["sentAt"]
        var intake = Intake()
        for (index, call) in calls.enumerated() {
            intake.lines += 1
            guard case .object(let members) = call else {
                intake.reject(line: index + 1, code: "not_an_object", "a call must be a JSON object")
                continue
            }
            if call.jsonText().utf8.count > IntakeLimits.maximumEventBytes {
                intake.reject(line: index + 1, code: "too_large", "event is larger than 32 KiB", as: .tooLarge)
                continue
            }
            intake.read(
                call: members, line: index + 1, type: nil, batchSentAt: sentAt, receivedAt: receivedAt,
                flattener: flattener)
        }
        return intake
    }

    /// Reads one call of `type` (`/v1/track`, `/v1/screen`, ...).
    /// - Throws: ``EventServerError`` (400) when the body is not a JSON object.
    static func segmentCall(
        _ body: ByteBuffer, type: String, receivedAt: Int64, flattener: Flattener
    ) throws(EventServerError) -> Intake {
        let object = try segmentObject(body)
        var intake = Intake()
        intake.lines = 1
        if body.readableBytes > IntakeLimits.maximumEventBytes {
            intake.reject(line: 1, code: "too_large", "event is larger than 32 KiB", as: .tooLarge)
            return intake
        }
        intake.read(
            call: object, line: 1, type: type, batchSentAt: nil, receivedAt: receivedAt, flattener: flattener)
        return intake
    }

    private static func segmentObject(_ body: ByteBuffer) throws(EventServerError) -> JSONObject {
        let parsed = body.withUnsafeReadableBytes { raw in
            Result { () throws(JSONParseError) -> JSONValue in try JSONValue.parse(utf8: raw.bindMemory(to: UInt8.self))
            }
        }
        let value: JSONValue
        switch parsed {
        case .success(let parsedValue): value = parsedValue
        case .failure(let error):
            throw EventServerError(.badRequest, "the body is not valid JSON: \(error.description)")
        }
        guard case .object(let object) = value else {
            throw EventServerError(.badRequest, "the body must be a JSON object")
        }
        return object
    }

    private mutating func read(
        call: JSONObject, line: Int, type pathType: String?, batchSentAt: JSONValue?, receivedAt: Int64,
        flattener: Flattener
    ) {
        let type = call["type"]?.stringValue ?? pathType ?? ""
        if Intake.ignoredSegmentTypes.contains(type) {
            ignored[type, default: 0] += 1
            return
        }
        var literal: [String: String] = [:]
        let name: String
        switch type {
        case "track":
            guard let event = call["event"]?.stringValue, !event.isEmpty else {
                return reject(line: line, code: "missing_event", "a track call needs a non-empty \"event\"")
            }
            name = event
        case "screen", "page":
            name = type
            if let title = call["name"]?.stringValue { literal["name"] = title }
        default:
            return reject(
                line: line, code: "unknown_type", "unknown call type \"\(type)\": expected track, screen, page or batch"
            )
        }
        if let app = call["context"]?["app"]?["name"]?.stringValue { literal["app"] = app }
        var fields: [String: String]
        switch call["properties"] {
        case nil, .null?:
            fields = [:]
        case .object(let properties)?:
            do throws(FlatteningRejection) {
                let flat = try flattener.flatten(properties)
                fields = flat.fields
                if flat.truncatedValues > 0 { truncated += 1 }
            } catch {
                return reject(
                    line: line, code: error.dropReason.rawValue, "\"properties\": \(error.description)",
                    as: error.dropReason)
            }
        default:
            return reject(line: line, code: "bad_properties", "\"properties\" must be an object")
        }
        fields.merge(literal) { _, call in call }
        guard let timestamp = Intake.segmentTime(call, batchSentAt: batchSentAt, receivedAt: receivedAt) else {
            return reject(line: line, code: "bad_timestamp", "\"timestamp\" and \"sentAt\" must be RFC 3339 times")
        }
        let id: EventID
        if let messageID = call["messageId"]?.stringValue, !messageID.isEmpty {
            id = EventID(messageID)
        } else {
            id = NDJSONCodec.derivedEventID(name: name, timestamp: timestamp, fields: fields)
        }
        append(MeasurementEvent(id: id, name: name, fields: fields, timestamp: timestamp), line: line)
    }

    /// Stores `event` of call `line`, or rejects it as `nul_character` when it holds a NUL, which no store keeps.
    private mutating func append(_ event: MeasurementEvent, line: Int) {
        guard !event.holdsNUL else {
            return reject(
                line: line, code: "nul_character",
                "the event name, the messageId, a property's name or value holds the character U+0000 (\\u0000)")
        }
        events.append(event)
    }

    /// The stored time of a call, corrected for the client's clock; nil when a time is malformed, or it or the
    /// corrected time lies outside ``EventTime/supportedRange``.
    static func segmentTime(_ call: JSONObject, batchSentAt: JSONValue?, receivedAt: Int64) -> Int64? {
        guard let timestampValue = call["timestamp"], timestampValue != .null else { return receivedAt }
        guard let timestamp = milliseconds(timestampValue) else { return nil }
        let sentAtValue = call["sentAt"] ?? batchSentAt
        guard let sentAtValue, sentAtValue != .null else { return timestamp }
        guard let sentAt = milliseconds(sentAtValue), EventTime.supportedRange.contains(receivedAt) else { return nil }
        // Each time is within 10^15 ms of the epoch, so the sum cannot overflow.
        let corrected = timestamp + (receivedAt - sentAt)
        return EventTime.supportedRange.contains(corrected) ? corrected : nil
    }

    /// A time of a call as milliseconds, when it is an RFC 3339 string or an integer in the supported range.
    private static func milliseconds(_ value: JSONValue) -> Int64? {
        let milliseconds: Int64?
        switch value {
        case .string(let text): milliseconds = EventTime.milliseconds(rfc3339: text)
        case .int(let value): milliseconds = value
        default: milliseconds = nil
        }
        return milliseconds.flatMap { EventTime.supportedRange.contains($0) ? $0 : nil }
    }
}

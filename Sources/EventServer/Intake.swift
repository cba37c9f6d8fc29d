import EventStoreInterface
import MeasurementEvents
import NIOCore
import Synchronization

/// What one request brought: the events to store, and every line or call refused, with its reason.
struct Intake: Sendable {
    /// One refused line (NDJSON) or call (Segment batch), 1-based.
    struct Rejection: Sendable, Hashable {
        var line: Int
        /// The stable snake_case code of the receipt's table (docs/http-api.md).
        var code: String
        var reason: String
        var dropReason: DropReason
    }

    /// A field whose name is a near miss of a catalogue field name (``FieldName/nearMiss(of:)``), such as
    /// `referer_app`: its event is stored as sent (the field among its extras), and the receipt names it.
    struct Warning: Sendable, Hashable {
        var line: Int
        var field: String
        var didYouMean: String
    }

    /// The most warnings one answer lists; the lines after them are not looked at for more.
    static let maximumWarnings = 100

    /// The lines (NDJSON, blank ones left out) or calls (Segment) read from the body: each is an event, a
    /// rejection or an ignored call, and the receipt's `lines` says how many, so that a client can check the
    /// receipt covers all it sent.
    var lines = 0
    /// The events to store that were decoded, in the order sent.
    var events: [MeasurementEvent] = []
    /// Each decoded event's place among the events to store (NDJSON: those read in place take the others).
    var positions: [Int32] = []
    /// The NDJSON lines read in place (``NDJSONCodec/scan(_:into:)``): events to store, which the backend encodes
    /// from their bytes (as they are read, when it has a ``FlatLineEncoder``).
    var inPlace = ScannedLines()
    /// The refused lines or calls.
    var rejections: [Rejection] = []
    /// The near misses among the field names, in line order, at most ``maximumWarnings``.
    var warnings: [Warning] = []
    /// Segment calls acknowledged and not stored, by type (`identify`, `group`, `alias`).
    var ignored: [String: Int] = [:]
    /// Events stored with a value cut to the length limit.
    var truncated = 0

    /// How many events the request gives to store: decoded, and read in place.
    var eventCount: Int { events.count + inPlace.count }

    /// The counts for the store's completeness table: rejections by reason, and truncations.
    var losses: [DropReason: Int] {
        var losses: [DropReason: Int] = [:]
        for rejection in rejections { losses[rejection.dropReason, default: 0] += 1 }
        if truncated > 0 { losses[.valueTruncated] = truncated }
        return losses
    }

    /// Refuses line `line` with the receipt's `code` and `reason`, counted in completeness as `dropReason`, by
    /// default ``DropReason/invalidEvent(code:)``: the receipt's code is the report's reason too.
    mutating func reject(line: Int, code: String, _ reason: String, as dropReason: DropReason? = nil) {
        rejections.append(
            Rejection(line: line, code: code, reason: reason, dropReason: dropReason ?? .invalidEvent(code: code)))
    }
}

extension DropReason {
    /// An event over 32 KiB of JSON (docs/http-api.md, "Bodies"): refused, counted.
    public static let tooLarge: DropReason = "too_large"
    /// A line or call that is not a valid event (bad JSON, a missing name or time), refused and counted under
    /// `invalid_event:CODE`, the code the receipt gives it (`invalid_event:bad_json`, `invalid_event:missing_name`),
    /// so that the report and the receipts name it alike. Counts from before the code was part of the reason are
    /// under `invalid_event` alone.
    public static func invalidEvent(code: String) -> DropReason { DropReason(rawValue: "invalid_event:" + code) }
}

/// The size limits of docs/http-api.md ("Bodies").
enum IntakeLimits {
    /// A body as sent (compressed or not).
    static let maximumSentBytes = 512 * 1024
    /// A body after decompression.
    static let maximumDecodedBytes = 4 * 1024 * 1024
    /// One event's JSON.
    static let maximumEventBytes = 32 * 1024
}

extension Intake {
    /// Reads an NDJSON body (the NDJSON line of docs/events.md): one event per line, blank lines skipped, `\r\n`
    /// allowed. Every other line gives an event or a rejection naming its 1-based line; a line over 32 KiB is
    /// `too_large`. Never throws: any bytes give an intake.
    static func ndjson(_ body: ByteBuffer, codec: NDJSONCodec, encoder: (any FlatLineEncoder)? = nil) -> Intake {
        var intake = Intake()
        intake.inPlace = ScannedLines(codec: codec, encoder: encoder)
        var flat = FlatLine()
        body.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            var line = 0
            while start < bytes.count {
                let newline = bytes.firstIndex(of: UInt8(ascii: "\n"), from: start)
                var end = newline
                if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                line += 1
                let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
                intake.read(line: line, text, codec: codec, flat: &flat)
                start = newline + 1
            }
        }
        return intake
    }

    /// The receipt's `lines` of an NDJSON body, as ``ndjson(_:codec:)`` counts them, without decoding a line: the
    /// rate limit's count of a request.
    static func countLines(_ body: ByteBuffer) -> Int {
        var count = 0
        forEachLine(body) { _, _ in count += 1 }
        return count
    }

    /// The 1-based numbers of the lines ``countLines(_:)`` counts (blank lines are numbered, not listed).
    static func lineNumbers(_ body: ByteBuffer) -> [Int] {
        var numbers: [Int] = []
        forEachLine(body) { number, _ in numbers.append(number) }
        return numbers
    }

    /// Calls `body` with the number and the bytes of every line that is not blank, as ``ndjson(_:codec:)`` reads.
    private static func forEachLine(_ buffer: ByteBuffer, _ body: (Int, UnsafeBufferPointer<UInt8>) -> Void) {
        buffer.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            var start = 0
            var line = 0
            while start < bytes.count {
                let newline = bytes.firstIndex(of: UInt8(ascii: "\n"), from: start)
                var end = newline
                if end > start, bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
                line += 1
                let text = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if !isBlank(text) { body(line, text) }
                start = newline + 1
            }
        }
    }

    /// Whether a line holds only spaces and tabs (or nothing): not an event, not counted.
    private static func isBlank(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        text.allSatisfy { $0 == 0x20 || $0 == 0x09 }
    }

    /// Reads one line: kept as its bytes when the codec reads it in place (into `flat`), else decoded.
    private mutating func read(
        line: Int, _ text: UnsafeBufferPointer<UInt8>, codec: NDJSONCodec, flat: inout FlatLine
    ) {
        if Intake.isBlank(text) { return }
        lines += 1
        guard text.count <= IntakeLimits.maximumEventBytes else {
            reject(line: line, code: "too_large", "event is larger than 32 KiB", as: .tooLarge)
            return
        }
        if codec.scan(text, into: &flat) {
            if warnings.count < Intake.maximumWarnings { warn(of: flat.fields, line: line) }
            inPlace.append(text, scanned: flat, position: Int32(eventCount))
            return
        }
        do throws(NDJSONLineError) {
            var truncatedValues = 0
            let event = try codec.decode(utf8: text, truncatedValues: &truncatedValues)
            if warnings.count < Intake.maximumWarnings { warn(of: event.fields, line: line) }
            positions.append(Int32(eventCount))
            events.append(event)
            if truncatedValues > 0 { truncated += 1 }
        } catch {
            reject(line: line, code: error.code, error.reason, as: error.dropReason)
        }
    }

    /// Adds a warning for each field of line `line` whose name is a near miss
    /// (``EventColumns/nearMisses(among:nearMiss:)``), by name, up to the limit.
    private mutating func warn(of fields: [String: String], line: Int) {
        let found = EventColumns.nearMisses(among: fields) { key in
            var name = key
            return name.withUTF8 { Intake.nearMiss(ofUTF8: $0) }
        }
        add(found, line: line)
    }

    /// The near-miss verdicts of the names met by every request (the hosts' own fields are on every line), used
    /// when no other request holds them (a name is matched afresh then).
    private static let nearMisses = Mutex(NearMissMemo())

    /// The catalogue name the field name `key` (no catalogue name) is a near miss of, if any
    /// (``FieldName/nearMiss(ofUTF8:)``), remembered across requests.
    private static func nearMiss(ofUTF8 key: UnsafeBufferPointer<UInt8>) -> String? {
        // nil when another request holds the memo; .some(nil) when the name is near none.
        let remembered: String?? = nearMisses.withLockIfAvailable { $0.nearMiss(ofUTF8: key) }
        return remembered ?? FieldName.nearMiss(ofUTF8: key)
    }

    /// ``warn(of:line:)`` of the fields of a line read in place.
    private mutating func warn(of fields: [FlatLine.Field], line: Int) {
        add(EventColumns.nearMisses(among: fields, nearMiss: Intake.nearMiss), line: line)
    }

    /// Adds the warnings of one line, in the order given, up to the limit.
    private mutating func add(_ found: [EventColumns.NearMiss], line: Int) {
        for miss in found.prefix(Intake.maximumWarnings - warnings.count) {
            warnings.append(Warning(line: line, field: miss.field, didYouMean: miss.didYouMean))
        }
    }
}

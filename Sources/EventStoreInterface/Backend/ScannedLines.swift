import MeasurementEvents

/// The lines of a request that the NDJSON codec reads in place (``NDJSONCodec/scan(_:into:)``), for a backend that
/// encodes such lines from their bytes (``EventBackend/prepare(_:positions:lines:)``) rather than from decoded
/// events: handed as they are read to the backend's ``FlatLineEncoder`` when it has one (each line is read once),
/// else kept as their bytes with their places among the request's events.
///
/// A line is kept only once the codec has read it in place, so it is a valid event with no value to cut; the
/// backend reads it again with ``codec`` (the same limits), or decodes it with it.
public struct ScannedLines: Sendable {
    /// The codec that read the lines.
    public var codec: NDJSONCodec
    /// The backend's encoder of the lines as they are read, if it has one.
    package private(set) var encoder: (any FlatLineEncoder)?
    /// The lines the encoder took.
    private var encoded = 0
    /// The kept lines' bytes, one after another.
    private var bytes: [UInt8] = []
    /// Where each kept line ends in `bytes`.
    private var ends: [Int] = []
    /// Each kept line's place among the request's events (the decoded events hold the other places).
    public private(set) var positions: [Int32] = []

    /// No lines yet, read with `codec`.
    public init(codec: NDJSONCodec = NDJSONCodec()) {
        self.codec = codec
    }

    /// No lines yet, read with `codec` and handed to `encoder` (when not nil) as they are read.
    package init(codec: NDJSONCodec, encoder: (any FlatLineEncoder)?) {
        self.codec = codec
        self.encoder = encoder
    }

    /// How many lines were read in place: taken by the encoder, or kept.
    public var count: Int { encoded + ends.count }

    /// Whether no line was read in place.
    public var isEmpty: Bool { count == 0 }

    /// How many lines are kept as their bytes (``withLine(_:_:)``).
    package var keptCount: Int { ends.count }

    /// Keeps `line` (read in place by ``codec``) at `position` among the request's events.
    package mutating func append(_ line: UnsafeBufferPointer<UInt8>, position: Int32) {
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
        positions.append(position)
    }

    /// Hands `line`, read in place as `scanned`, to the encoder at `position` among the request's events; keeps its
    /// bytes when there is none or it leaves the line to the decoder.
    package mutating func append(_ line: UnsafeBufferPointer<UInt8>, scanned: FlatLine, position: Int32) {
        if let encoder, encoder.append(scanned, position: position) {
            encoded += 1
            return
        }
        append(line, position: position)
    }

    /// Calls `body` with the bytes of kept line `index`.
    package func withLine<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let start = index == 0 ? 0 : ends[index - 1]
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<ends[index]])) }
    }

    /// The decoded events of `events` (at `positions`) and of the kept lines, in the request's order (for a backend
    /// without an encoder, which took none).
    package func merged(with events: [MeasurementEvent], positions eventPositions: [Int32]) -> [MeasurementEvent] {
        precondition(encoded == 0, "lines taken by a backend's encoder are only in its rows")
        var all: [(Int32, MeasurementEvent)] = zip(eventPositions, events).map { ($0, $1) }
        for index in 0..<keptCount {
            // A line kept here was read in place, so it decodes.
            if let event = withLine(index, { try? codec.decode(utf8: $0) }) { all.append((positions[index], event)) }
        }
        return all.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

/// A backend's encoder of a request's lines read in place, into its rows as the request reads them
/// (``ScannedLines``): the line is not read a second time by ``EventBackend/prepare(_:positions:lines:)``, which
/// takes the encoder's rows. Used by one request's task at a time.
package protocol FlatLineEncoder: AnyObject, Sendable {
    /// Encodes `line` at `position` among the request's events; `false` (and nothing kept) when its event must be
    /// decoded first.
    func append(_ line: FlatLine, position: Int32) -> Bool
}

/// A backend that encodes a request's lines as they are read (``FlatLineEncoder``).
package protocol FlatLineEncoding {
    /// A new encoder for one request's lines.
    func makeFlatLineEncoder() -> any FlatLineEncoder
}

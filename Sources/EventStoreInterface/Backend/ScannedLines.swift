import MeasurementEvents

/// The lines of a request that the NDJSON codec reads in place (``NDJSONCodec/scan(_:into:)``), kept as their
/// bytes with their places among the request's events, for a backend that encodes such lines from their bytes
/// (``EventBackend/prepare(_:positions:lines:)``) rather than from decoded events.
///
/// A line is kept only once the codec has read it in place, so it is a valid event with no value to cut; the
/// backend reads it again with ``codec`` (the same limits), or decodes it with it.
public struct ScannedLines: Sendable {
    /// The codec that read the lines.
    public var codec: NDJSONCodec
    /// The lines' bytes, one after another.
    private var bytes: [UInt8] = []
    /// Where each line ends in `bytes`.
    private var ends: [Int] = []
    /// Each line's place among the request's events (the decoded events hold the other places).
    public private(set) var positions: [Int32] = []

    /// No lines yet, read with `codec`.
    public init(codec: NDJSONCodec = NDJSONCodec()) {
        self.codec = codec
    }

    /// How many lines are kept.
    public var count: Int { ends.count }

    /// Whether no line is kept.
    public var isEmpty: Bool { ends.isEmpty }

    /// Keeps `line` (read in place by ``codec``) at `position` among the request's events.
    package mutating func append(_ line: UnsafeBufferPointer<UInt8>, position: Int32) {
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
        positions.append(position)
    }

    /// Calls `body` with the bytes of line `index`.
    package func withLine<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let start = index == 0 ? 0 : ends[index - 1]
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[start..<ends[index]])) }
    }

    /// The decoded events of `events` (at `positions`) and of these lines, in the request's order.
    package func merged(with events: [MeasurementEvent], positions eventPositions: [Int32]) -> [MeasurementEvent] {
        var all: [(Int32, MeasurementEvent)] = zip(eventPositions, events).map { ($0, $1) }
        for index in 0..<count {
            // A line kept here was read in place, so it decodes.
            if let event = withLine(index, { try? codec.decode(utf8: $0) }) { all.append((positions[index], event)) }
        }
        return all.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

import Foundation

extension NDJSONCodec {
    /// The NDJSON line of `event` (without newline): id, name, ts, fields with keys in byte order.
    public static func line(for event: MeasurementEvent) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(estimatedLength(of: event))
        appendLine(for: event, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends ``line(for:)`` of `event` to `bytes` (without newline), without making the line a `String` first:
    /// the outbox of every uploading app and `alstats export` write one per event.
    ///
    /// Strings are written by ``JSONValue/writeString(_:to:)-([UInt8])`` (`"`, `\`, control characters escaped,
    /// the rest copied in runs); a UUID id is written from its 128 bits.
    public static func appendLine(for event: MeasurementEvent, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: #"{"id":"#.utf8)
        if let (high, low) = event.id.uuidValue {
            appendUUID(high: high, low: low, to: &bytes)
        } else {
            JSONValue.writeString(event.id.description, to: &bytes)
        }
        bytes.append(contentsOf: #","name":"#.utf8)
        JSONValue.writeString(event.name, to: &bytes)
        bytes.append(contentsOf: #","ts":"#.utf8)
        bytes.append(contentsOf: String(event.timestamp).utf8)
        bytes.append(contentsOf: #","fields":{"#.utf8)
        let fields = Array(event.fields)
        for (offset, position) in keyByteOrder(of: fields).enumerated() {
            if offset > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONValue.writeString(fields[position].key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONValue.writeString(fields[position].value, to: &bytes)
        }
        bytes.append(contentsOf: "}}".utf8)
    }

    /// About the length of `event`'s line, for a buffer's capacity: its strings and the punctuation around them.
    private static func estimatedLength(of event: MeasurementEvent) -> Int {
        var length = 64 + event.name.utf8.count
        for (key, value) in event.fields { length += key.utf8.count + value.utf8.count + 6 }
        return length
    }

    /// The positions of `fields` with their keys in byte order (as lines and derived ids order them).
    ///
    /// Positions are sorted, not fields (moving a field is a retain and a release of two strings), by the keys'
    /// first 8 bytes and only on a tie by all of them: sorting the fields by their keys' UTF-8 views was a fifth of
    /// the uploader's line writing.
    package static func keyByteOrder(of fields: [(key: String, value: String)]) -> [Int] {
        let prefixes = fields.map { bytePrefix($0.key) }
        var order = Array(fields.indices)
        order.sort { first, second in
            guard prefixes[first] == prefixes[second] else { return prefixes[first] < prefixes[second] }
            return precedesInBytes(fields[first].key, fields[second].key)
        }
        return order
    }

    /// Whether `first`'s UTF-8 bytes sort before `second`'s (`String`'s `<` compares by Unicode scalars'
    /// canonical equivalence, not by bytes).
    package static func precedesInBytes(_ first: String, _ second: String) -> Bool {
        var first = first
        var second = second
        return first.withUTF8 { left in
            second.withUTF8 { right in
                let shared = min(left.count, right.count)
                if shared > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
                    let order = memcmp(leftBase, rightBase, shared)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
    }

    /// The first 8 UTF-8 bytes of `text` as a big-endian integer, zero-padded: two texts whose prefixes differ sort
    /// as their prefixes do, byte by byte.
    package static func bytePrefix(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { utf8 in
            var prefix: UInt64 = 0
            for index in 0..<8 { prefix = prefix << 8 | UInt64(index < utf8.count ? utf8[index] : 0) }
            return prefix
        }
    }

    /// Appends a UUID's canonical text, quoted (``EventID/writeUUID(high:low:to:)``): the id of a line, here and
    /// in the push's lines written straight from a row.
    package static func appendUUID(high: UInt64, low: UInt64, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 36))
        bytes.withUnsafeMutableBufferPointer { buffer in
            EventID.writeUUID(high: high, low: low, to: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

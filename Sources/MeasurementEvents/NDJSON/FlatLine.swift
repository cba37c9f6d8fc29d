#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The event of an NDJSON line in the shape exports and SDKs write, found where the line lies: its id, name, time
/// and fields as they would be decoded, without a `String` or a dictionary for any of them
/// (``NDJSONCodec/scan(_:into:)``). A backend's rows (EventIngest's `IngestRows`) are made from it on the
/// ingest's reader thread.
///
/// The name and the fields point into the line read (or, for a renamed alias and the type `fail`, at constant
/// texts): they are valid only while that line is, in the call that was given it.
package struct FlatLine {
    /// One field: its key and value as UTF-8 bytes, after the aliases' normalisation.
    package struct Field {
        package var key: UnsafeBufferPointer<UInt8>
        package var value: UnsafeBufferPointer<UInt8>
    }

    /// The event's id: the line's, or the one derived from name, time and fields when the line has none.
    package fileprivate(set) var id = EventID(uuidHigh: 0, low: 0)
    /// The line's own id text, when it has one: ``id``'s ``EventID/description`` (a UUID is read as one only in its
    /// canonical lowercase form, which is its text).
    package fileprivate(set) var idText: UnsafeBufferPointer<UInt8>?
    /// The event's name (never empty).
    package fileprivate(set) var name = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
    /// The event's time, in Unix milliseconds.
    package fileprivate(set) var timestamp: Int64 = 0
    /// The event's fields, keys distinct, in the line's order.
    package fileprivate(set) var fields: [Field] = []
    /// Scratch for sorting fields by key (a derived id hashes them in that order).
    private var order: [Int] = []

    /// An empty line to scan into; one is reused for every line of an ingest.
    package init() {
        fields.reserveCapacity(16)
        order.reserveCapacity(16)
    }
}

extension NDJSONCodec {
    /// Reads `bytes` (one line, without its newline) into `line` when the line is in the flat shape, every text in
    /// it printable ASCII without an escape, and its event within the limits with no value cut: an object of the
    /// members `id` (a non-empty string, or `null`), `name` (a non-empty string), `ts` (integer milliseconds of at
    /// most 18 digits, or an RFC 3339 string) and `fields` (`null`, or an object of distinct keys whose values are
    /// strings), each at most once, without white space.
    ///
    /// Such a line gives the same event as ``decode(utf8:truncatedValues:)`` (aliases renamed, a missing id
    /// derived) and cuts no value; `false` for any other line, which the caller decodes instead, so every line
    /// gives the same event or the same error either way.
    package func scan(_ bytes: UnsafeBufferPointer<UInt8>, into line: inout FlatLine) -> Bool {
        var scanner = FlatLineScanner(bytes: bytes)
        line.fields.removeAll(keepingCapacity: true)
        guard scanner.take(UInt8(ascii: "{")) else { return false }
        var id: UnsafeBufferPointer<UInt8>?
        var seen = 0
        var hasName = false
        var hasTime = false
        repeat {
            guard let key = scanner.string() else { return false }
            guard scanner.take(UInt8(ascii: ":")) else { return false }
            let member: Int
            switch key.count {
            case 2 where key[0] == UInt8(ascii: "i") && key[1] == UInt8(ascii: "d"):
                member = 1
                if scanner.takeNull() { break }
                guard let text = scanner.string(), !text.isEmpty else { return false }
                id = text
            case 4 where FlatLineScanner.equals(key, "name"):
                member = 2
                guard let text = scanner.string(), !text.isEmpty else { return false }
                line.name = text
                hasName = true
            case 2 where key[0] == UInt8(ascii: "t") && key[1] == UInt8(ascii: "s"):
                member = 4
                guard let time = scanner.time() else { return false }
                line.timestamp = time
                hasTime = true
            case 6 where FlatLineScanner.equals(key, "fields"):
                member = 8
                if scanner.takeNull() { break }
                guard scanner.fields(into: &line.fields) else { return false }
            default:
                return false
            }
            guard seen & member == 0 else { return false }
            seen |= member
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "}")), scanner.isAtEnd, hasName, hasTime, withinLimits(line.fields) else {
            return false
        }
        line.normaliseAliases()
        line.idText = id
        if let id {
            line.id = EventID(utf8: id)
        } else {
            line.deriveID()
        }
        return true
    }

    /// Whether `fields` are within the flattener's limits with no value to cut, and their keys distinct.
    private func withinLimits(_ fields: [FlatLine.Field]) -> Bool {
        let limits = flattener.limits
        guard fields.count <= limits.maximumFields else { return false }
        for (index, field) in fields.enumerated() {
            guard field.key.count <= limits.maximumKeyBytes, field.value.count <= limits.maximumValueBytes else {
                return false
            }
            for other in fields[..<index] where FlatLineScanner.equal(other.key, field.key) { return false }
        }
        return true
    }
}

extension FlatLine {
    /// ``NDJSONCodec/normaliseAliases(_:)`` on the fields: `sourceHost` and `intentData` renamed when the
    /// catalogue's name is not there too, then the type `failed` read as `fail`.
    fileprivate mutating func normaliseAliases() {
        rename("sourceHost", to: "sourceURLHost")
        rename("intentData", to: "outputURL")
        if let type = position(of: "type"), FlatLineScanner.equals(fields[type].value, "failed") {
            fields[type].value = FlatLine.bytes(of: "fail")
        }
    }

    private mutating func rename(_ alias: StaticString, to name: StaticString) {
        guard let index = position(of: alias), position(of: name) == nil else { return }
        fields[index].key = FlatLine.bytes(of: name)
    }

    private func position(of key: StaticString) -> Int? {
        fields.firstIndex { FlatLineScanner.equals($0.key, key) }
    }

    /// The bytes of a constant text (they live as long as the program).
    private static func bytes(of text: StaticString) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
    }

    /// ``NDJSONCodec/derivedID(name:timestamp:fields:)`` of the name, time and fields.
    fileprivate mutating func deriveID() {
        var hash = DerivedIDHash()
        hash.mix(name)
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        let time = timestamp
        withUnsafeMutableBytes(of: &digits) { scratch in
            let typed = scratch.bindMemory(to: UInt8.self)
            guard let base = typed.baseAddress else { return }
            hash.mix(UnsafeBufferPointer(start: base, count: time.writeDecimal(to: base)))
        }
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: fields.indices)
        let fields = self.fields
        order.sort { FlatLine.precedes(fields[$0].key, fields[$1].key) }
        for index in order {
            hash.mix(fields[index].key)
            hash.mix(fields[index].value)
        }
        id = hash.id
    }
}

/// The reading position in a line for ``NDJSONCodec/scan(_:into:)``.
private struct FlatLineScanner {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index = 0

    package var isAtEnd: Bool { index == bytes.count }

    /// Steps over `byte` when it is next; whether it was.
    package mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Steps over `null` when it is next; whether it was.
    package mutating func takeNull() -> Bool {
        guard bytes.count - index >= 4,
            FlatLineScanner.equals(UnsafeBufferPointer(rebasing: bytes[index..<index + 4]), "null")
        else { return false }
        index += 4
        return true
    }

    /// The string at the reading position, when it is printable ASCII without an escape: its bytes between the
    /// quotes, the position after its closing quote. `nil` for anything else.
    package mutating func string() -> UnsafeBufferPointer<UInt8>? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        var highBits: UInt8 = 0
        let end = bytes.firstJSONSpecial(from: index, highBits: &highBits)
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\""), highBits < 0x80 else { return nil }
        defer { index = end + 1 }
        return UnsafeBufferPointer(rebasing: bytes[index..<end])
    }

    /// The time at the reading position: an integer of at most 18 digits (which JSON reads as that integer) or an
    /// RFC 3339 string. `nil` for anything else (a fraction, an exponent, a longer number: the decoder's to read).
    package mutating func time() -> Int64? {
        if bytes.count > index, bytes[index] == UInt8(ascii: "\"") {
            guard let text = string() else { return nil }
            return EventTime.milliseconds(rfc3339: text)
        }
        let negative = take(UInt8(ascii: "-"))
        let start = index
        var value: Int64 = 0
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            // Counted before the digit is added: 18 digits never overflow, a 19th could.
            guard index - start < 18 else { return nil }
            value = value * 10 + Int64(bytes[index] &- UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        // JSON writes no leading zero, and a number followed by anything but `,` or `}` is not an integer.
        guard digits > 0, digits == 1 || bytes[start] != UInt8(ascii: "0"), index < bytes.count,
            bytes[index] == UInt8(ascii: ",") || bytes[index] == UInt8(ascii: "}")
        else { return nil }
        return negative ? -value : value
    }

    /// The members of the object at the reading position, every value a string: appended to `fields`.
    package mutating func fields(into fields: inout [FlatLine.Field]) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")), let value = string() else { return false }
            fields.append(FlatLine.Field(key: key, value: value))
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// Whether `bytes` spell `text`.
    package static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        bytes.count == text.utf8CodeUnitCount
            && (bytes.isEmpty || memcmp(bytes.baseAddress!, text.utf8Start, bytes.count) == 0)
    }

    /// Whether two byte strings are equal.
    package static func equal(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        first.count == second.count
            && (first.isEmpty || memcmp(first.baseAddress!, second.baseAddress!, first.count) == 0)
    }
}

extension FlatLine {
    /// Whether `bytes` spell `text`.
    package static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { FlatLineScanner.equal(bytes, $0) }
    }

    /// Whether `first` sorts before `second` byte by byte, a prefix first (as keys sort in lines and `extra`).
    package static func precedes(_ first: UnsafeBufferPointer<UInt8>, _ second: UnsafeBufferPointer<UInt8>) -> Bool {
        let shared = min(first.count, second.count)
        if shared > 0 {
            let order = memcmp(first.baseAddress!, second.baseAddress!, shared)
            if order != 0 { return order < 0 }
        }
        return first.count < second.count
    }
}

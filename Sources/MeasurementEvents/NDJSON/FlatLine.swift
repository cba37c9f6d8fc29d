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
/// The name and the fields point into the line read (or, for a renamed alias, a boolean and the type `fail`, at
/// constant texts, and for a value with an escape into the line's own buffer): they are valid only while that line
/// is, in the call that was given it, until the next line is scanned into it.
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
    /// Whether a value had an escape (`\"`, `\\` or `\/`): its bytes, unescaped, may hold a `"` or a `\`, which
    /// a writer of the value into JSON or `COPY` text must escape.
    package fileprivate(set) var hasEscapedValue = false
    /// The keys of the `null` fields (dropped from the event, as the decoder drops them): scratch of a scan.
    fileprivate var nullKeys: [UnsafeBufferPointer<UInt8>] = []
    /// The member keys of the objects being read, each object's after its parent's: scratch of a scan.
    fileprivate var memberKeys: [UnsafeBufferPointer<UInt8>] = []
    /// Scratch for sorting fields by key (a derived id hashes them in that order).
    private var order: [Int] = []
    /// The unescaped values of the line last scanned.
    fileprivate let unescaped = FlatLineBuffer()

    /// An empty line to scan into; one is reused for every line of an ingest.
    package init() {
        fields.reserveCapacity(16)
        order.reserveCapacity(16)
    }
}

/// Room for the unescaped values of one line, which its fields point into: at least as many bytes as the line,
/// made before a line is scanned, so that it never moves while the line is read.
final class FlatLineBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    /// The bytes used by the line being scanned.
    var count = 0

    init() {
        capacity = 4_096
        base = .allocate(capacity: capacity)
    }

    deinit { base.deallocate() }

    /// Forgets the last line's values and makes room for a line of `bytes` bytes: its unescaped values and, as
    /// room allows, its nested keys (a line whose keys need more is left to the decoder).
    func reset(forLineOf bytes: Int) {
        count = 0
        guard 2 * bytes > capacity else { return }
        base.deallocate()
        capacity = max(2 * bytes, 2 * capacity)
        base = .allocate(capacity: capacity)
    }

    /// Room for `bytes` more bytes, reserved; `nil` when there is none.
    func reserve(_ bytes: Int) -> UnsafeMutablePointer<UInt8>? {
        guard capacity - count >= bytes else { return nil }
        defer { count += bytes }
        return base + count
    }
}

extension NDJSONCodec {
    /// Reads `bytes` (one line, without its newline) into `line` when the line is in the flat shape, every text in
    /// it printable ASCII, and its event within the limits with no value cut: an object of the members `id` (a
    /// non-empty string, or `null`), `name` (a non-empty string), `ts` (integer milliseconds of at most 18 digits,
    /// or an RFC 3339 string) and `fields` (`null`, or an object of distinct keys whose values are strings,
    /// integers of at most 18 digits, booleans, `null`, arrays of those but with strings unescaped, or objects of
    /// such values but `null`, within the depth limit), each at most once, and any other member whose value is such
    /// a value, without white space. Keys, the id, the name and the time have no escape; a string value may have
    /// `\"`, `\\` and `\/`. A boolean reads as `1` or `0`, an integer as its digits, an array as its text, a nested
    /// object as `parent/child` fields, and a `null` field is dropped, as the decoder reads them; a flattened key
    /// met twice is the decoder's to read.
    ///
    /// Such a line gives the same event as ``decode(utf8:truncatedValues:)`` (aliases renamed, a missing id
    /// derived) and cuts no value; `false` for any other line, which the caller decodes instead, so every line
    /// gives the same event or the same error either way.
    package func scan(_ bytes: UnsafeBufferPointer<UInt8>, into line: inout FlatLine) -> Bool {
        // A longer line is the decoder's: the line's buffer (twice the line) stays small for the rest of a run.
        guard bytes.count <= NDJSONCodec.maximumScannedBytes else { return false }
        var scanner = FlatLineScanner(bytes: bytes, unescaped: line.unescaped)
        line.reset(forLineOf: bytes.count)
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
                guard
                    scanner.object(
                        into: &line.fields, nulls: &line.nullKeys, members: &line.memberKeys, prefix: nil, depth: 0,
                        limits: flattener.limits)
                else { return false }
            default:
                // Another member: ignored, as the decoder ignores it, once its value is read whole.
                guard scanner.skip(depth: 0) else { return false }
                member = 0
            }
            guard seen & member == 0 else { return false }
            seen |= member
        } while scanner.take(UInt8(ascii: ","))
        guard scanner.take(UInt8(ascii: "}")), scanner.isAtEnd, hasName, hasTime,
            withinLimits(line.fields, nulls: line.nullKeys)
        else {
            return false
        }
        line.hasEscapedValue = scanner.unescapedAny
        line.finish(id: id)
        return true
    }

    /// The longest line ``scan(_:into:)`` reads in place: 1 MiB.
    package static let maximumScannedBytes = 1 << 20

    /// Whether `fields` are within the flattener's limits with no value to cut, and their keys and those of the
    /// `nulls` distinct (a key given twice is the decoder's to read: its last value decides), the `nulls` counted
    /// among the fields and their keys within the limit too (the decoder refuses a longer one).
    private func withinLimits(_ fields: [FlatLine.Field], nulls: [UnsafeBufferPointer<UInt8>]) -> Bool {
        let limits = flattener.limits
        guard fields.count + nulls.count <= limits.maximumFields else { return false }
        for (index, field) in fields.enumerated() {
            guard field.key.count <= limits.maximumKeyBytes, field.value.count <= limits.maximumValueBytes else {
                return false
            }
            for other in fields[..<index] where FlatLineScanner.equal(other.key, field.key) { return false }
        }
        for (index, key) in nulls.enumerated() {
            guard key.count <= limits.maximumKeyBytes else { return false }
            for other in nulls[..<index] where FlatLineScanner.equal(other, key) { return false }
            for field in fields where FlatLineScanner.equal(field.key, key) { return false }
        }
        return true
    }
}

extension FlatLine {
    /// Forgets the last line read, with room for one of `bytes` bytes.
    fileprivate mutating func reset(forLineOf bytes: Int) {
        unescaped.reset(forLineOf: bytes)
        memberKeys.removeAll(keepingCapacity: true)
        fields.removeAll(keepingCapacity: true)
        nullKeys.removeAll(keepingCapacity: true)
    }

    /// Ends a line read whole: its aliases renamed, its id the line's own (`id`) or derived.
    fileprivate mutating func finish(id: UnsafeBufferPointer<UInt8>?) {
        normaliseAliases()
        idText = id
        if let id {
            self.id = EventID(utf8: id)
        } else {
            deriveID()
        }
    }

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
    /// Where values with an escape are written unescaped.
    let unescaped: FlatLineBuffer
    /// Whether a value was unescaped.
    private(set) var unescapedAny = false

    init(bytes: UnsafeBufferPointer<UInt8>, unescaped: FlatLineBuffer) {
        self.bytes = bytes
        self.unescaped = unescaped
    }

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
    /// RFC 3339 string, in ``EventTime/supportedRange``. `nil` for anything else (a fraction, an exponent, a longer
    /// number, a time out of the range: the decoder's to read, or to refuse).
    package mutating func time() -> Int64? {
        guard let time = anyTime(), EventTime.supportedRange.contains(time) else { return nil }
        return time
    }

    /// ``time()`` in or out of the supported range.
    private mutating func anyTime() -> Int64? {
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

    /// The members of the object at the reading position, as the flattener reads them: a scalar member (``value()``)
    /// appended to `fields` under its key after `prefix` and `/` (the object's own flattened key; none when it is
    /// `nil`, for the event's fields, or empty), the key of a `null` one to `nulls`, an object member's read the same
    /// way one level deeper. `false` for anything else, for a key met twice in one object (the decoder keeps the
    /// last), for a `null` in a nested object, an object past `limits`' depth or under a key past its length, or keys
    /// that outgrow the line's buffer. `members` keeps the keys of the objects being read.
    package mutating func object(
        into fields: inout [FlatLine.Field], nulls: inout [UnsafeBufferPointer<UInt8>],
        members: inout [UnsafeBufferPointer<UInt8>], prefix: UnsafeBufferPointer<UInt8>?, depth: Int,
        limits: FlatteningLimits
    ) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        if take(UInt8(ascii: "}")) { return true }
        let level = members.count
        defer { members.removeSubrange(level...) }
        repeat {
            guard let key = string(), take(UInt8(ascii: ":")) else { return false }
            // Past the limit of fields the decoder refuses or counts the line: checked as it grows, so that the
            // search for a repeated key stays short.
            guard members.count < limits.maximumFields, fields.count + nulls.count <= limits.maximumFields else {
                return false
            }
            for other in members[level...] where FlatLineScanner.equal(other, key) { return false }
            members.append(key)
            // Under an empty key, as at the top, a key is not prefixed (the flattener's rule).
            guard let flatKey = prefix.map({ $0.isEmpty ? key : joined($0, key) }) ?? key else { return false }
            if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
                guard depth < limits.maximumDepth, flatKey.count <= limits.maximumKeyBytes,
                    object(
                        into: &fields, nulls: &nulls, members: &members, prefix: flatKey, depth: depth + 1,
                        limits: limits)
                else { return false }
                continue
            }
            guard let value = value() else { return false }
            if let value {
                fields.append(FlatLine.Field(key: flatKey, value: value))
            } else {
                guard prefix == nil else { return false }
                nulls.append(flatKey)
            }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// `prefix`, `/` and `key` written into the line's buffer; `nil` when it has no room.
    private mutating func joined(_ prefix: UnsafeBufferPointer<UInt8>, _ key: UnsafeBufferPointer<UInt8>)
        -> UnsafeBufferPointer<UInt8>?
    {
        let count = prefix.count + 1 + key.count
        guard let output = unescaped.reserve(count) else { return nil }
        if let start = prefix.baseAddress { output.update(from: start, count: prefix.count) }
        output[prefix.count] = UInt8(ascii: "/")
        if let start = key.baseAddress { (output + prefix.count + 1).update(from: start, count: key.count) }
        return UnsafeBufferPointer(start: output, count: count)
    }

    /// Steps over the value at the reading position when it is a scalar (``value()``) or an object of such values
    /// and objects, at most 16 deep (far from the decoder's limit); whether it did.
    package mutating func skip(depth: Int) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return value() != nil }
        guard depth < 16 else { return false }
        index += 1
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            guard string() != nil, take(UInt8(ascii: ":")), skip(depth: depth + 1) else { return false }
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// The scalar at the reading position as the decoder flattens it: a string (``escapedString()``), an integer's
    /// digits (``integer(before:)``), a boolean as `1` or `0`, an array of scalars as its text (``array()``);
    /// `.some(nil)` for `null`; `nil` for anything else (an object, a fraction: the decoder's to read).
    package mutating func value() -> UnsafeBufferPointer<UInt8>?? {
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            guard let text = escapedString() else { return nil }
            return .some(text)
        case UInt8(ascii: "t"):
            guard literal("true") else { return nil }
            return .some(FlatLineScanner.one)
        case UInt8(ascii: "f"):
            guard literal("false") else { return nil }
            return .some(FlatLineScanner.zero)
        case UInt8(ascii: "n"):
            guard literal("null") else { return nil }
            return .some(nil)
        case UInt8(ascii: "["):
            guard let text = array() else { return nil }
            return .some(text)
        default:
            guard let digits = integer(before: UInt8(ascii: "}")) else { return nil }
            return .some(digits)
        }
    }

    /// The array at the reading position as its bytes, when they are the compact JSON text the flattener writes
    /// for it: strings without an escape, integers (``integer(before:)``), `true`, `false` and `null`, no white
    /// space. `nil` for anything else (an object or an array inside, whose keys and spacing it writes its own way).
    private mutating func array() -> UnsafeBufferPointer<UInt8>? {
        let start = index
        guard take(UInt8(ascii: "[")) else { return nil }
        if !take(UInt8(ascii: "]")) {
            repeat {
                guard index < bytes.count else { return nil }
                switch bytes[index] {
                case UInt8(ascii: "\""): guard string() != nil else { return nil }
                case UInt8(ascii: "t"): guard literal("true") else { return nil }
                case UInt8(ascii: "f"): guard literal("false") else { return nil }
                case UInt8(ascii: "n"): guard literal("null") else { return nil }
                default: guard integer(before: UInt8(ascii: "]")) != nil else { return nil }
                }
            } while take(UInt8(ascii: ","))
            guard take(UInt8(ascii: "]")) else { return nil }
        }
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    /// A boolean's texts (constant bytes, which live as long as the program).
    private static var one: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: ("1" as StaticString).utf8Start, count: 1)
    }
    private static var zero: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: ("0" as StaticString).utf8Start, count: 1)
    }

    /// Steps over `text` when it is next; whether it was.
    private mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count,
            FlatLineScanner.equals(UnsafeBufferPointer(rebasing: bytes[index..<index + count]), text)
        else { return false }
        index += count
        return true
    }

    /// The integer at the reading position as its digits (with a leading `-`): at most 18 of them, which JSON
    /// reads as that integer and the decoder writes back the same, with no leading zero and not `-0`, followed by
    /// `,` or `closing` (the end of its object or array). `nil` for anything else.
    private mutating func integer(before closing: UInt8) -> UnsafeBufferPointer<UInt8>? {
        let start = index
        let negative = take(UInt8(ascii: "-"))
        let first = index
        while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
            guard index - first < 18 else { return nil }
            index += 1
        }
        let digits = index - first
        guard digits > 0, digits == 1 || bytes[first] != UInt8(ascii: "0"),
            !(negative && digits == 1 && bytes[first] == UInt8(ascii: "0")), index < bytes.count,
            bytes[index] == UInt8(ascii: ",") || bytes[index] == closing
        else { return nil }
        return UnsafeBufferPointer(rebasing: bytes[start..<index])
    }

    /// The string at the reading position, printable ASCII, its escapes `\"`, `\\` and `\/` only: its bytes in
    /// place when it has none, else unescaped into ``unescaped``; the position after its closing quote. `nil` for
    /// anything else.
    private mutating func escapedString() -> UnsafeBufferPointer<UInt8>? {
        let start = index
        if let plain = string() { return plain }
        index = start
        guard take(UInt8(ascii: "\"")) else { return nil }
        // Unescaped, the rest of the line is no longer than it is.
        guard unescaped.capacity - unescaped.count >= bytes.count - index else { return nil }
        let output = unescaped.base + unescaped.count
        var written = 0
        var highBits: UInt8 = 0
        while true {
            let end = bytes.firstJSONSpecial(from: index, highBits: &highBits)
            guard end < bytes.count, highBits < 0x80 else { return nil }
            let run = end - index
            if run > 0 { (output + written).update(from: bytes.baseAddress! + index, count: run) }
            written += run
            index = end + 1
            switch bytes[end] {
            case UInt8(ascii: "\""):
                unescaped.count += written
                unescapedAny = true
                return UnsafeBufferPointer(start: output, count: written)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { return nil }
                let escaped = bytes[index]
                guard escaped == UInt8(ascii: "\"") || escaped == UInt8(ascii: "\\") || escaped == UInt8(ascii: "/")
                else { return nil }
                output[written] = escaped
                written += 1
                index += 1
            default:
                return nil  // a control character
            }
        }
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

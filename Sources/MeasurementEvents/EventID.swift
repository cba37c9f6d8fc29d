import Synchronization

/// The identity of an event: a time-ordered UUIDv7 when generated here, or any string read from NDJSON.
///
/// Generated ids follow RFC 9562 (version 7): 48 bits of Unix milliseconds, then a 42-bit counter that
/// starts at a random value and increases by one per id in a process (so ids generated in one process
/// sort in generation order even within one millisecond), then 32 random bits fixed per process (so two
/// processes do not collide). Generating one costs no system call.
///
/// ```swift
/// let id = EventID()
/// print(id)                                  // 0192f5c3-8a1b-7c4d-9e2f-0123456789ab
/// EventID("0192f5c3-8a1b-7c4d-9e2f-0123456789ab") == id   // parses the canonical form back
/// ```
public struct EventID: Sendable, Hashable, Comparable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case uuid(high: UInt64, low: UInt64)
        case text(String)

        /// Text ids are equal when their bytes are (``Swift/String/hasSameBytes(as:)``), as the databases' unique
        /// ids are: two ids that differ only in Unicode normalisation are two events.
        static func == (lhs: Storage, rhs: Storage) -> Bool {
            switch (lhs, rhs) {
            case (.uuid(let lh, let ll), .uuid(let rh, let rl)): return lh == rh && ll == rl
            case (.text(let left), .text(let right)): return left.hasSameBytes(as: right)
            default: return false
            }
        }

        /// The bits of a UUID, the bytes of a text (``Swift/String/hashBytes(into:)``).
        func hash(into hasher: inout Hasher) {
            switch self {
            case .uuid(let high, let low):
                hasher.combine(high)
                hasher.combine(low)
            case .text(let text):
                text.hashBytes(into: &hasher)
            }
        }
    }

    let storage: Storage

    /// A fresh UUIDv7 id for the current wall-clock time.
    public init() {
        let now = SystemEventClock().nowMilliseconds()
        self = EventIDGenerator.shared.withLock { $0.next(milliseconds: now) }
    }

    /// An id from its text: the canonical UUID form is stored as 16 bytes, any other text (even empty) as it is.
    /// - Parameter text: the id as written in NDJSON or the database.
    public init(_ text: String) {
        if let (high, low) = EventID.parseUUID(text) {
            storage = .uuid(high: high, low: low)
        } else {
            storage = .text(text)
        }
    }

    init(high: UInt64, low: UInt64) {
        storage = .uuid(high: high, low: low)
    }

    /// ``init(_:)`` of valid UTF-8 bytes, read in place (an NDJSON line's id): a UUID costs no `String`.
    package init(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if let (high, low) = EventID.parseUUID(bytes: bytes) {
            storage = .uuid(high: high, low: low)
        } else {
            storage = .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// The all-zero UUID, given to an event before the bus stamps it (cheaper than generating one).
    static let unassigned = EventID(high: 0, low: 0)

    /// The id as text: the lowercase canonical UUID form, or the text it was read from.
    public var description: String {
        switch storage {
        case .text(let text):
            return text
        case .uuid(let high, let low):
            return EventID.format(high: high, low: low)
        }
    }

    /// The Unix milliseconds encoded in a UUIDv7 id, or `nil` for other ids.
    public var milliseconds: Int64? {
        guard case .uuid(let high, _) = storage, (high >> 12) & 0xF == 7 else { return nil }
        return Int64(high >> 16)
    }

    /// Orders ids by the bytes of their text (as SQLite's and PostgreSQL's `COLLATE "C"` order them), which for
    /// UUIDv7 ids is their time order.
    public static func < (lhs: EventID, rhs: EventID) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.uuid(let lh, let ll), .uuid(let rh, let rl)):
            return (lh, ll) < (rh, rl)
        default:
            return lhs.description.utf8.lexicographicallyPrecedes(rhs.description.utf8)
        }
    }

    static func format(high: UInt64, low: UInt64) -> String {
        String(unsafeUninitializedCapacity: 36) { buffer in
            writeUUID(high: high, low: low, to: buffer)
            return 36
        }
    }

    /// Writes the canonical text of the UUID `high`, `low` (lowercase, dashes at 8, 13, 18 and 23) into the first 36
    /// bytes of `buffer`, as ``description`` gives it: for writers of bytes (an NDJSON line) that need no `String`.
    ///
    /// Digits are worked out, not looked up: a table in a global was a lazy-initialisation check per digit, 2.5%
    /// of the PostgreSQL writers' CPU when they wrote two UUIDs per event.
    @inline(__always)
    package static func writeUUID(high: UInt64, low: UInt64, to buffer: UnsafeMutableBufferPointer<UInt8>) {
        precondition(buffer.count >= 36, "a UUID's text takes 36 bytes")
        var position = 0
        for nibble in 0..<32 {
            if position == 8 || position == 13 || position == 18 || position == 23 {
                buffer[position] = UInt8(ascii: "-")
                position += 1
            }
            let half = nibble < 16 ? high : low
            let digit = UInt8(truncatingIfNeeded: (half >> UInt64((15 - nibble % 16) * 4)) & 0xF)
            buffer[position] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") - 10 + digit
            position += 1
        }
    }

    /// The halves of a UUID in canonical form (lowercase hex digits, dashes at 8, 13, 18 and 23), or `nil`.
    static func parseUUID(_ text: String) -> (UInt64, UInt64)? {
        guard text.utf8.count == 36 else { return nil }
        // A 36-byte string is stored natively, contiguous: read in place (the view's iterator cost 5% of the
        // collector's request threads).
        if let parsed = text.utf8.withContiguousStorageIfAvailable(parseUUID(bytes:)) { return parsed }
        return Array(text.utf8).withUnsafeBufferPointer(parseUUID(bytes:))
    }

    /// ``parseUUID(_:)`` of UTF-8 bytes.
    private static func parseUUID(bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var high: UInt64 = 0
        var low: UInt64 = 0
        var valid = true
        // Lowercase hex digits only: uppercase ids stay text, so that they print back unchanged.
        func accumulate(_ value: inout UInt64, _ range: Range<Int>) {
            for position in range {
                let byte = bytes[position]
                let digit = byte &- UInt8(ascii: "0")
                let letter = byte &- UInt8(ascii: "a")
                valid = valid && (digit < 10 || letter < 6)
                value = value << 4 | UInt64(digit < 10 ? digit : letter &+ 10)
            }
        }
        accumulate(&high, 0..<8)
        accumulate(&high, 9..<13)
        accumulate(&high, 14..<18)
        accumulate(&low, 19..<23)
        accumulate(&low, 24..<36)
        return valid ? (high, low) : nil
    }
}

/// The state that makes UUIDv7 ids monotonic: the last millisecond used and a counter.
struct EventIDSequence: Sendable {
    private var lastMilliseconds: Int64 = 0
    private var counter: UInt64
    private let node: UInt64

    /// A sequence with a random node and counter start; with `seed`, the same ones for the same seed.
    init(seed: UInt64? = nil) {
        if let seed {
            var generator = SeededGenerator(seed: seed)
            node = UInt64(UInt32.random(in: .min ... .max, using: &generator))
            counter = UInt64.random(in: 0..<(1 << 41), using: &generator)
        } else {
            var generator = SystemRandomNumberGenerator()
            node = UInt64(UInt32.random(in: .min ... .max, using: &generator))
            counter = UInt64.random(in: 0..<(1 << 41), using: &generator)
        }
    }

    /// The next id; a time earlier than the last one used is raised to it, so ids never go back.
    mutating func next(milliseconds: Int64) -> EventID {
        if milliseconds > lastMilliseconds { lastMilliseconds = milliseconds }
        counter &+= 1
        if counter >= (1 << 42) {  // the counter wrapped: borrow the next millisecond
            counter = 0
            lastMilliseconds += 1
        }
        // high: 48 bits of ms | version 7 | the counter's high 12 bits
        let high =
            (UInt64(truncatingIfNeeded: lastMilliseconds) & 0xFFFF_FFFF_FFFF) << 16 | 0x7000
            | (counter >> 30) & 0xFFF
        // low: variant 0b10 | the counter's low 30 bits | 32 bits of node
        let low = 0x8000_0000_0000_0000 | (counter & 0x3FFF_FFFF) << 32 | node
        return EventID(high: high, low: low)
    }
}

/// The process-wide sequence behind ``EventID/init()``.
enum EventIDGenerator {
    static let shared = StateLock(EventIDSequence())
}

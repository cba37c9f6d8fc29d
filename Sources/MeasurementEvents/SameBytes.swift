#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension String {
    /// Whether this text and `other` are the same UTF-8 bytes. `String`'s `==` is canonical equivalence: `café` as
    /// U+00E9 and as `e` + U+0301 are equal to it, while SQLite and PostgreSQL (`COLLATE "C"`) keep them apart. An
    /// id, and a dimension of a rollup group, compare this way, so that what the writers merge in Swift is what
    /// the SQL over the stored events (a rebuild of the rollups, an analyst's query) would group.
    @inlinable package func hasSameBytes(as other: String) -> Bool {
        let (mine, theirs) = (utf8, other.utf8)
        guard mine.count == theirs.count else { return false }
        // Native and small strings lend their bytes in place; anything else is walked.
        let compared = mine.withContiguousStorageIfAvailable { left in
            theirs.withContiguousStorageIfAvailable { right in
                guard let a = left.baseAddress, let b = right.baseAddress else { return true }  // both empty
                return memcmp(a, b, left.count) == 0
            }
        }
        return (compared ?? nil) ?? mine.elementsEqual(theirs)
    }
}

extension String {
    /// Whether this text's UTF-8 bytes sort before `other`'s, byte by byte, a prefix first: the order of
    /// `utf8.lexicographicallyPrecedes`, compared with `memcmp` where both lend their bytes in place (the generic
    /// comparison was a twelfth of the cost of encoding an event's extra fields).
    @inlinable package func precedesBytes(of other: String) -> Bool {
        let (mine, theirs) = (utf8, other.utf8)
        let compared = mine.withContiguousStorageIfAvailable { left in
            theirs.withContiguousStorageIfAvailable { right in
                let shared = Swift.min(left.count, right.count)
                if shared > 0 {
                    let order = memcmp(left.baseAddress!, right.baseAddress!, shared)
                    if order != 0 { return order < 0 }
                }
                return left.count < right.count
            }
        }
        return (compared ?? nil) ?? mine.lexicographicallyPrecedes(theirs)
    }
}

extension String {
    /// Feeds this text's UTF-8 bytes, and their count, to `hasher`: the hash that goes with
    /// ``hasSameBytes(as:)``. `String`'s own hash normalises the text first, so all the normalisations of a text,
    /// which are many for text with many accents, would share one hash: a flood of them would make a set or a
    /// dictionary that holds them slow.
    @inlinable package func hashBytes(into hasher: inout Hasher) {
        let bytes = utf8
        hasher.combine(bytes.count)
        let hashed: Void? = bytes.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        if hashed == nil {
            for byte in bytes { hasher.combine(byte) }
        }
    }
}

extension String? {
    /// ``Swift/String/hashBytes(into:)`` of the text, or a mark of its absence.
    @inlinable package func hashBytes(into hasher: inout Hasher) {
        if let text = self {
            hasher.combine(true)
            text.hashBytes(into: &hasher)
        } else {
            hasher.combine(false)
        }
    }

    /// Whether both are `nil`, or both are text of the same UTF-8 bytes (``Swift/String/hasSameBytes(as:)``).
    @inlinable package func hasSameBytes(as other: String?) -> Bool {
        switch (self, other) {
        case (nil, nil): return true
        case (let mine?, let theirs?): return mine.hasSameBytes(as: theirs)
        default: return false
        }
    }
}

extension String {
    /// Whether the string's UTF-8 bytes hold `needle`'s: a byte search, where `contains(_:)` of one `String` in
    /// another goes through Foundation's Unicode comparison on Linux (5% of an ingest's CPU for one check an event).
    package func containsBytes(_ needle: String) -> Bool {
        var text = self
        var needle = needle
        return text.withUTF8 { haystack in
            needle.withUTF8 { wanted in
                guard let wantedStart = wanted.baseAddress, !wanted.isEmpty else { return true }
                guard let start = haystack.baseAddress, haystack.count >= wanted.count else { return false }
                // memchr to each candidate first byte, then memcmp (glibc's memmem is not in Swift's Glibc module).
                let last = start + (haystack.count - wanted.count)
                var at = start
                while at <= last {
                    guard let found = memchr(at, Int32(wanted[0]), last - at + 1) else { return false }
                    let candidate = UnsafePointer(found.assumingMemoryBound(to: UInt8.self))
                    if memcmp(candidate, wantedStart, wanted.count) == 0 { return true }
                    at = candidate + 1
                }
                return false
            }
        }
    }
}

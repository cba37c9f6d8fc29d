#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension UInt8 {
    /// This byte as a small letter when it is an ASCII capital; any other byte as it is (UTF-8 continuation
    /// bytes included, so a comparison built on it never matches a non-ASCII letter).
    @inlinable package var asciiLowercased: UInt8 {
        self >= UInt8(ascii: "A") && self <= UInt8(ascii: "Z") ? self | 0x20 : self
    }
}

extension Collection<UInt8> {
    /// Whether these bytes spell `lowercase` (lowercase ASCII bytes), ASCII letters compared in any case and
    /// every other byte exactly.
    @inlinable package func equalsIgnoringASCIICase(_ lowercase: some Collection<UInt8>) -> Bool {
        count == lowercase.count && zip(self, lowercase).allSatisfy { $0.asciiLowercased == $1 }
    }
}

extension UnsafeBufferPointer<UInt8> {
    /// The position of the first `byte` at or after `start`, or `count` when there is none: found with `memchr`,
    /// many times faster than a generic search on a slice of the buffer.
    package func firstIndex(of byte: UInt8, from start: Int) -> Int {
        guard start < count, let base = baseAddress, let found = memchr(base + start, Int32(byte), count - start)
        else { return count }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }
}

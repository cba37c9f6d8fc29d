#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The near-miss verdicts of the field names met so far (``FieldName/nearMiss(of:)``), so that a name on every line
/// is matched against the catalogue once: matching was a twentieth of a realistic feed's ingest, whose hosts' own
/// fields are on every line. Names are found by their bytes in a table of their own (a `String` dictionary's hash
/// cost two thirds of the matching it saved). Holds at most ``capacity`` names; past them, a name is matched each
/// time.
package struct NearMissMemo {
    /// The most names kept.
    package static let capacity = 4_096

    /// Each slot the position in `verdicts` of the name hashed there, or -1: open addressing, twice the capacity.
    private var slots = [Int32](repeating: -1, count: 2 * NearMissMemo.capacity)
    /// The kept names' bytes, one after another.
    private var names: [UInt8] = []
    /// Each kept name's bytes in `names`, and its verdict.
    private var verdicts: [(bytes: Range<Int>, suggestion: String?)] = []

    /// An empty memo.
    package init() {}

    /// ``FieldName/nearMiss(of:)`` of a name, remembered.
    package mutating func nearMiss(of key: String) -> String? {
        var key = key
        return key.withUTF8 { nearMiss(ofUTF8: $0) }
    }

    /// ``FieldName/nearMiss(ofUTF8:)`` of a name's UTF-8 bytes, remembered.
    package mutating func nearMiss(ofUTF8 key: UnsafeBufferPointer<UInt8>) -> String? {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        for byte in key { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 {
            let kept = verdicts[Int(slots[slot])]
            let same =
                kept.bytes.count == key.count
                && names.withUnsafeBufferPointer { names in
                    key.isEmpty || memcmp(names.baseAddress! + kept.bytes.lowerBound, key.baseAddress!, key.count) == 0
                }
            if same { return kept.suggestion }
            slot = (slot + 1) & mask
        }
        let suggestion = FieldName.nearMiss(ofUTF8: key)
        if verdicts.count < Self.capacity {
            slots[slot] = Int32(verdicts.count)
            verdicts.append((names.count..<names.count + key.count, suggestion))
            names.append(contentsOf: key)
        }
        return suggestion
    }
}

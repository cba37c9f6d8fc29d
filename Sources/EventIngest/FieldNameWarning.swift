import EventStoreInterface
import MeasurementEvents

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A field of an ingested line whose name is a near miss of a catalogue field name (``FieldName/nearMiss(of:)``),
/// such as `referer_app` for `refererAppName`: its event is stored as read, the field among the extras, and ingest
/// says which name was probably meant.
///
/// Its ``description`` is `file:line: field 'referer_app' is not a catalogue name: did you mean 'refererAppName'?`.
public struct FieldNameWarning: Sendable, Hashable, CustomStringConvertible {
    /// The input's name as the user gave it (`-` reads as `stdin`).
    public var file: String
    /// The 1-based line number.
    public var line: Int
    /// The field's name as read.
    public var field: String
    /// The catalogue name it is a near miss of.
    public var didYouMean: String

    /// Creates a warning.
    public init(file: String, line: Int, field: String, didYouMean: String) {
        self.file = file
        self.line = line
        self.field = field
        self.didYouMean = didYouMean
    }

    /// `file:line: field '...' is not a catalogue name: did you mean '...'?`
    public var description: String {
        "\(file):\(line): field '\(field)' is not a catalogue name: did you mean '\(didYouMean)'?"
    }
}

/// The near misses among the field names of some lines: how many, and the first few.
package struct FieldNameWarnings: Sendable, Hashable {
    /// How many warnings are kept; the others are only counted.
    package static let keptCount = 5

    /// How many fields were near misses.
    package private(set) var count = 0
    /// The first ``keptCount`` of them, in input order.
    package private(set) var first: [FieldNameWarning] = []

    /// Counts a near miss, keeping it while fewer than ``keptCount`` are.
    package mutating func add(_ warning: @autoclosure () -> FieldNameWarning) {
        count += 1
        if first.count < Self.keptCount { first.append(warning()) }
    }

    /// Counts the near misses among the field names of line `line` of `file`, read in place, by name. A catalogue
    /// name costs one look-up of its column (``EventColumns/bindIndex(ofKey:)``); only the others are looked up in
    /// `memo`, matched there once each.
    package mutating func check(_ fields: [FlatLine.Field], file: String, line: Int, memo: inout NearMissMemo) {
        var found: [FieldNameWarning] = []
        for field in fields where EventColumns.bindIndex(ofKey: field.key) == nil {
            if let suggestion = memo.nearMiss(ofUTF8: field.key) {
                let name = String(decoding: field.key, as: UTF8.self)
                found.append(FieldNameWarning(file: file, line: line, field: name, didYouMean: suggestion))
            }
        }
        add(found)
    }

    /// ``check(_:file:line:)`` of a decoded event's fields, each name's verdict looked up in `memo` (made once per
    /// name there).
    package mutating func check(_ fields: [String: String], file: String, line: Int, memo: inout NearMissMemo) {
        var found: [FieldNameWarning] = []
        for key in fields.keys {
            if let suggestion = memo.nearMiss(of: key) {
                found.append(FieldNameWarning(file: file, line: line, field: key, didYouMean: suggestion))
            }
        }
        add(found)
    }

    /// Counts the warnings of one line, by field name.
    private mutating func add(_ found: [FieldNameWarning]) {
        guard !found.isEmpty else { return }
        for warning in found.sorted(by: { $0.field < $1.field }) { add(warning) }
    }
}

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

    /// The catalogue name `key` is a near miss of, or `nil` when it is a catalogue name or near none.
    package mutating func nearMiss(of key: String) -> String? {
        if EventColumns.bindIndex(of: key) != nil { return nil }
        var key = key
        return key.withUTF8 { nearMiss(ofUTF8: $0) }
    }

    /// ``nearMiss(of:)`` of a name that is no catalogue name, by its UTF-8 bytes.
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

extension IngestSummary {
    /// Counts `warnings` (of lines after those counted so far), keeping the first few.
    package mutating func add(_ warnings: FieldNameWarnings) {
        nearMissFields += warnings.count
        firstNearMissFields += warnings.first.prefix(max(0, FieldNameWarnings.keptCount - firstNearMissFields.count))
    }
}

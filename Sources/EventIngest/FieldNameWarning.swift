import EventStoreInterface
import MeasurementEvents

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

    /// Counts the near misses among the field names of line `line` of `file`, read in place, by name
    /// (``EventColumns/nearMisses(among:nearMiss:)``), each name not in the catalogue matched once in `memo`.
    package mutating func check(_ fields: [FlatLine.Field], file: String, line: Int, memo: inout NearMissMemo) {
        add(EventColumns.nearMisses(among: fields) { memo.nearMiss(ofUTF8: $0) }, file: file, line: line)
    }

    /// ``check(_:file:line:memo:)`` of a decoded event's fields.
    package mutating func check(_ fields: [String: String], file: String, line: Int, memo: inout NearMissMemo) {
        add(EventColumns.nearMisses(among: fields) { memo.nearMiss(of: $0) }, file: file, line: line)
    }

    /// Counts the near misses of one line, in the order given.
    private mutating func add(_ found: [EventColumns.NearMiss], file: String, line: Int) {
        for miss in found {
            add(FieldNameWarning(file: file, line: line, field: miss.field, didYouMean: miss.didYouMean))
        }
    }
}

extension IngestSummary {
    /// Counts `warnings` (of lines after those counted so far), keeping the first few.
    package mutating func add(_ warnings: FieldNameWarnings) {
        nearMissFields += warnings.count
        firstNearMissFields += warnings.first.prefix(max(0, FieldNameWarnings.keptCount - firstNearMissFields.count))
    }
}

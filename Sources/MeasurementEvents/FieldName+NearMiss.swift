#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FieldName {
    /// The catalogue's field names, and the aliases ingest renames, each with the name a near miss of it is told
    /// to use (an alias's catalogue name).
    private static let known: [(name: String, suggested: String)] =
        [
            inputURL, inputURLScheme, targetURL, refererURL, refererAppName, sourceApplication, version, outputURL,
            outputURLScheme, sourceURL, sourceURLHost, success, type, error, ref,
        ].map { ($0, $0) } + [("sourceHost", sourceURLHost), ("intentData", outputURL)]

    /// ``known`` as bytes: each name, the same lowercased, and the name to suggest.
    private static let entries: [(name: [UInt8], folded: [UInt8], suggested: String)] = known.map {
        (Array($0.name.utf8), Array($0.name.lowercased().utf8), $0.suggested)
    }

    /// The longest name that may be a near miss: a snake_case spelling of the longest catalogue name, with room.
    private static let maximumKeyBytes = 40

    /// The catalogue field name that `key` looks like a misspelling of, or `nil` for a catalogue name itself, an
    /// alias ingest renames, or a name that is not close to any (a field of the host's own, such as `campaign`).
    ///
    /// A near miss is a name that stays a field of its own (kept among an event's extras, not in the catalogue's
    /// column) and, once lowercased without `_`, `-` and `.` and with `referrer` spelt `referer`, is a catalogue
    /// name that starts with the same letter and is at most 2 edits away (1 for names of 5 or 6 letters, none for
    /// shorter ones), or is the first 8 or more letters of exactly one catalogue name.
    ///
    /// ```swift
    /// FieldName.nearMiss(of: "referer_app")       // "refererAppName"
    /// FieldName.nearMiss(of: "referrerAppName")   // "refererAppName"
    /// FieldName.nearMiss(of: "campaign")          // nil
    /// ```
    public static func nearMiss(of key: String) -> String? {
        var key = key
        return key.withUTF8 { nearMiss(ofUTF8: $0) }
    }

    /// ``nearMiss(of:)`` of a name's UTF-8 bytes (a line read in place). Cheap for the names it has nothing to say
    /// about: a name whose first letter starts no catalogue name, or a catalogue name, is answered without folding.
    public static func nearMiss(ofUTF8 key: UnsafeBufferPointer<UInt8>) -> String? {
        guard let first = key.first, key.count <= maximumKeyBytes, mayStartNearMiss(first) else { return nil }
        guard let start = key.baseAddress else { return nil }
        for entry in entries where entry.name.count == key.count {
            if entry.name.withUnsafeBufferPointer({ memcmp($0.baseAddress!, start, key.count) }) == 0 { return nil }
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumKeyBytes) { buffer in
            guard let length = fold(key, into: buffer) else { return nil }
            return closest(to: UnsafeBufferPointer(rebasing: buffer[..<length]))
        }
    }

    /// Whether a name starting with `byte` may be a near miss: it starts with a separator or with the first letter
    /// of a catalogue name, in either case (most fields of a host's own are answered here).
    private static func mayStartNearMiss(_ byte: UInt8) -> Bool {
        switch byte | 0x20 {
        case UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "r"), UInt8(ascii: "s"),
            UInt8(ascii: "t"), UInt8(ascii: "v"):
            return true
        default:
            return byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
    }

    /// Writes `key` lowercased, without `_`, `-` and `.`, `referrer` spelt `referer`, into `buffer`; its length, or
    /// `nil` for a name with any other byte than an ASCII letter or digit (a nested key such as `extras/fb_app_id`).
    private static func fold(_ key: UnsafeBufferPointer<UInt8>, into buffer: UnsafeMutableBufferPointer<UInt8>)
        -> Int?
    {
        var length = 0
        for byte in key {
            switch byte {
            case UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
                continue
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                buffer[length] = byte | 0x20
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                buffer[length] = byte
            default:
                return nil
            }
            length += 1
            // "referrer" → "referer": drop the second r of "rr" when it ends "referr".
            if length >= 6, buffer[length - 1] == UInt8(ascii: "r"),
                UnsafeBufferPointer(rebasing: buffer[(length - 6)..<length]).elementsEqual("referr".utf8)
            {
                length -= 1
            }
        }
        return length > 0 ? length : nil
    }

    /// The suggestion for a folded name: the nearest catalogue name within its edit budget, else the one catalogue
    /// name it is the start of (8 letters or more).
    private static func closest(to folded: UnsafeBufferPointer<UInt8>) -> String? {
        var best: (distance: Int, suggested: String)?
        var prefixOf: [String] = []
        for entry in entries where entry.folded[0] == folded[0] {
            let name = entry.folded
            let budget = name.count >= 7 ? 2 : name.count >= 5 ? 1 : 0
            if abs(name.count - folded.count) <= budget, let distance = editDistance(folded, name, atMost: budget),
                distance < best?.distance ?? Int.max
            {
                best = (distance, entry.suggested)
            }
            if folded.count >= 8, folded.count < name.count, name.starts(with: folded),
                !prefixOf.contains(entry.suggested)
            {
                prefixOf.append(entry.suggested)
            }
        }
        if let best { return best.suggested }
        return prefixOf.count == 1 ? prefixOf[0] : nil
    }

    /// The Levenshtein distance between `a` and `b` when it is at most `limit`, else `nil`. Its two rows are on
    /// the stack: two arrays a call made it a fifth of the near-miss checks' time on wide events.
    private static func editDistance(_ a: UnsafeBufferPointer<UInt8>, _ b: [UInt8], atMost limit: Int) -> Int? {
        if limit == 0 { return a.elementsEqual(b) ? 0 : nil }
        guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) <= limit ? max(a.count, b.count) : nil }
        return withUnsafeTemporaryAllocation(of: Int.self, capacity: 2 * (b.count + 1)) { rows in
            var previous = UnsafeMutableBufferPointer(rebasing: rows[..<(b.count + 1)])
            var current = UnsafeMutableBufferPointer(rebasing: rows[(b.count + 1)...])
            for j in 0...b.count { previous[j] = j }
            for i in 1...a.count {
                current[0] = i
                var rowMinimum = i
                for j in 1...b.count {
                    let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                    current[j] = min(substitution, previous[j] + 1, current[j - 1] + 1)
                    rowMinimum = min(rowMinimum, current[j])
                }
                if rowMinimum > limit { return nil }
                swap(&previous, &current)
            }
            return previous[b.count] <= limit ? previous[b.count] : nil
        }
    }
}

import PostgresNIO

/// SQL written with SQLite's named parameters (`:since`), as PostgreSQL's positional ones (`$1`): the bundled
/// queries (`Queries/*.sql` and their `Queries/postgres/` variants) name their parameters, and
/// PostgreSQL's extended protocol numbers them.
///
/// Each distinct name becomes one number, in order of first use; every use of a name gets its number, as text
/// (`$1::text`): a parameter is text, as a NULL of unstated type would otherwise leave `:ref IS NULL` without
/// one, and the SQL casts a parameter it uses as a number (`CAST(:since AS BIGINT)`, `:since::bigint`). A colon
/// inside a string literal, a quoted identifier or a comment is not a parameter, and neither is a `::` cast.
///
/// ```swift
/// let sql = PostgresNamedSQL("SELECT * FROM t WHERE :ref IS NULL OR ref = :ref")
/// // sql.text == "SELECT * FROM t WHERE $1::text IS NULL OR ref = $1::text", sql.names == ["ref"]
/// ```
struct PostgresNamedSQL: Sendable, Hashable {
    /// The SQL with `$n::text` for each use of a parameter.
    let text: String
    /// The parameters' names, without the colon: `names[0]` is `$1`.
    let names: [String]

    init(_ sql: String) {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var names: [String] = []
        var index = 0
        func copy(through end: Int) {
            let stop = min(end, bytes.count)
            output += bytes[index..<stop]
            index = stop
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // A literal or quoted identifier runs to the next quote; a doubled quote inside it is one quote,
                // which the scan reads as the end of one run and the start of the next.
                let end = bytes[(index + 1)...].firstIndex(of: byte).map { $0 + 1 } ?? bytes.count
                copy(through: end)
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                copy(through: bytes[index...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                let close = Self.find([UInt8(ascii: "*"), UInt8(ascii: "/")], in: bytes, from: index + 2)
                copy(through: close.map { $0 + 2 } ?? bytes.count)
            case UInt8(ascii: ":") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: ":"):
                copy(through: index + 2)
            case UInt8(ascii: ":") where index + 1 < bytes.count && Self.startsName(bytes[index + 1]):
                var end = index + 2
                while end < bytes.count && Self.continuesName(bytes[end]) { end += 1 }
                let name = String(decoding: bytes[(index + 1)..<end], as: UTF8.self)
                let number: Int
                if let known = names.firstIndex(of: name) {
                    number = known + 1
                } else {
                    names.append(name)
                    number = names.count
                }
                output += Array("$\(number)::text".utf8)
                index = end
            default:
                output.append(byte)
                index += 1
            }
        }
        self.text = String(decoding: output, as: UTF8.self)
        self.names = names
    }

    /// The bindings for `values` (by name, without the colon): each parameter as text, or NULL when `values`
    /// lacks it.
    func bindings(_ values: [String: String]) -> PostgresBindings {
        var binds = PostgresBindings(capacity: names.count)
        for name in names {
            if let value = values[name] {
                binds.append(value)
            } else {
                binds.appendNull()
            }
        }
        return binds
    }

    private static func startsName(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    private static func continuesName(_ byte: UInt8) -> Bool {
        startsName(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard start + needle.count <= bytes.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// Aligned `label  value` lines for the text output; a multi-line value is indented under its first line.
struct TextBlock {
    private(set) var rows: [(String, [String])] = []

    mutating func add(_ label: String, _ value: String) {
        rows.append((label, [value]))
    }

    mutating func add(_ label: String, lines: [String]) {
        rows.append((label, lines.isEmpty ? ["none"] : lines))
    }

    /// `key = value` lines, sorted by key.
    static func pairs(_ dictionary: [String: String]) -> [String] {
        dictionary.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }
    }

    var lines: [String] {
        let width = (rows.map(\.0.count).max() ?? 0) + 2
        return rows.flatMap { label, values in
            values.enumerated().map { index, value in
                (index == 0
                    ? label.padding(toLength: width, withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: width)) + value
            }
        }
    }
}

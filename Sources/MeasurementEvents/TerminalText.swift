/// Text that clients sent, made safe to print on a terminal or in a tab-separated line: each control character (C0,
/// DEL and C1: the escape that starts a terminal's command sequences, tabs, line breaks) written as `\u` and four
/// hex digits. A value could otherwise clear the reader's screen, retitle the window, hide a line or break a row.
///
/// ```swift
/// TerminalText.printable("a\u{1B}[2Jb")   // "a\\u001B[2Jb"
/// ```
package enum TerminalText {
    /// `text` with its control characters written out; `text` itself when it has none.
    package static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}

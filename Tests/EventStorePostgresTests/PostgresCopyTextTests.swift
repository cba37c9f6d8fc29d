#if Server

import NIOCore
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// `COPY`'s text format as the writers make it; no server needed.
struct PostgresCopyTextTests {
    /// Each of the four bytes becomes its escape; every other byte, a literal `\N` included, stays as it is but
    /// for its backslash.
    @Test func specialBytesAreEscapedAndTheRestKept() {
        var text = ByteBuffer()
        PostgresCopyText.write("a\tb\nc\rd\\e \\N é\u{1}", to: &text)
        #expect(String(buffer: text) == "a\\tb\\nc\\rd\\\\e \\\\N é\u{1}")
    }

    /// A long value with one byte to escape at its very end is escaped (the quick check reads every byte), and one
    /// without is copied as it is.
    @Test func longValuesAreCheckedToTheirLastByte() {
        let plain = String(repeating: "https://example.test/path?query=1&", count: 9)
        for tail in ["\\", "\t", "\n", "\r"] {
            var text = ByteBuffer()
            PostgresCopyText.write(plain + tail, to: &text)
            #expect(String(buffer: text).hasPrefix(plain) && String(buffer: text).count == plain.count + 2)
        }
        var text = ByteBuffer()
        PostgresCopyText.write(plain, to: &text)
        #expect(String(buffer: text) == plain)
    }

    /// Integers in decimal, the extremes included.
    @Test func integersAreWrittenInDecimal() {
        for value: Int64 in [0, 7, -7, 10, 1_700_000_000_123, -1_700_000_000_123, .max, .min] {
            var bytes = [UInt8](repeating: 0, count: PostgresCopyText.maximumIntegerLength)
            let count = bytes.withUnsafeMutableBufferPointer { PostgresCopyText.write(value, to: $0.baseAddress!) }
            #expect(String(decoding: bytes[..<count], as: UTF8.self) == String(value))
        }
    }
}

#endif

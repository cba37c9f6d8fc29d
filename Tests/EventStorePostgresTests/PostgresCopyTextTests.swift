import NIOCore
import Testing

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
}

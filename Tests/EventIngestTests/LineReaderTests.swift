import Foundation
import TestSupport
import Testing

@testable import EventIngest

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lines read from a file descriptor in chunks: whole lines, however the chunks cut them, and a line over the limit
/// reported once and skipped, not kept in memory.
struct LineReaderTests {
    static func lines(of text: String, maximumLineBytes: Int = 64, chunkBytes: Int = 16) throws -> [String] {
        let database = TemporaryDatabase()
        let file = database.file("lines.ndjson")
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        let descriptor = open(file, O_RDONLY)
        defer { close(descriptor) }
        var seen: [String] = []
        try LineReader(descriptor: descriptor, maximumLineBytes: maximumLineBytes, chunkBytes: chunkBytes).forEachLine {
            line, _ in
            switch line {
            case .text(let bytes): seen.append(String(decoding: bytes, as: UTF8.self))
            case .tooLong: seen.append("<too long>")
            }
        }
        return seen
    }

    @Test func aLineLongerThanTheLimitIsReportedAndSkipped() throws {
        let text = "short\n" + String(repeating: "x", count: 1_000) + "\nafter\n"
        #expect(try Self.lines(of: text) == ["short", "<too long>", "after"])
    }

    @Test(arguments: [1, 2, 3, 7, 16, 4_096])
    func linesComeBackWholeWhateverTheChunkSize(chunkBytes: Int) throws {
        let text = "first line\nsecond\n\nlast without newline"
        #expect(
            try Self.lines(of: text, chunkBytes: chunkBytes) == ["first line", "second", "", "last without newline"])
    }
}

import Testing

@testable import EventUpload

/// A batch keeps its lines as the request body: each line and its newline, in order, whether a line was added as a
/// `String` or as bytes, and its halves split that body between the same lines and keys.
struct UploadBatchTests {
    @Test func aBatchsBodyIsItsLinesEachEndedByANewline() {
        var batch = UploadBatch()
        var bytes = 0
        #expect(batch.append(#"{"id":"a"}"#, key: 1, bytes: &bytes, maximumBytes: 100))
        #expect(batch.append(Array(#"{"id":"é"}"#.utf8), key: 2, bytes: &bytes, maximumBytes: 100))
        #expect(batch.lines == [#"{"id":"a"}"#, #"{"id":"é"}"#])
        #expect(batch.body == Array("{\"id\":\"a\"}\n{\"id\":\"é\"}\n".utf8))
        #expect(bytes == batch.body.count)
        #expect(batch == UploadBatch(keys: [1, 2], lines: batch.lines))
    }

    @Test func aLineThatWouldPassTheByteLimitIsNotAdded() {
        var batch = UploadBatch()
        var bytes = 0
        #expect(batch.append(String(repeating: "x", count: 30), key: 1, bytes: &bytes, maximumBytes: 40))
        #expect(!batch.append(Array(repeating: UInt8(ascii: "y"), count: 9), key: 2, bytes: &bytes, maximumBytes: 40))
        #expect(batch.count == 1)
        #expect(batch.keys == [1])
    }

    @Test(arguments: [1, 2, 3, 7])
    func theHalvesOfABatchHoldItsLinesAndKeysInOrder(count: Int) {
        let lines = (0..<count).map { #"{"n":\#(String(repeating: "7", count: $0 + 1))}"# }
        let batch = UploadBatch(keys: (0..<count).map { Int64($0 + 10) }, lines: lines)
        let (first, second) = batch.halves
        #expect(first.lines + second.lines == lines)
        #expect(first.keys + second.keys == batch.keys)
        #expect(first.body + second.body == batch.body)
        #expect(first.count == count / 2)
        #expect(second.lines == Array(lines[(count / 2)...]))
    }
}

import Foundation
import MeasurementEvents
import Testing

@testable import EventUpload

/// The uploader's gzip (zlib; ISA-L on Linux with the `ISAL` trait) read back by the system zlib, as a collector reads it: the
/// bodies a push sends, incompressible bytes (where deflate's output outgrows its input), nothing, and batches
/// compressed on several threads at once (the compressors' working memory is shared through a pool).
struct GzipTests {
    static func realisticBody(lines: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        var body: [UInt8] = []
        for index in 0..<lines {
            let id = String(random.next(), radix: 16) + String(random.next(), radix: 16)
            let line =
                #"{"id":"\#(id)","name":"al_nav_out","ts":\#(1_763_683_200_000 + index),"fields":{"#
                + #""outputURL":"https://example.com/p/\#(random.next() % 100_000)?al_applink_data=%7B%22x%22%7D","#
                + #""success":"1","targetURL":"https://example.com/items/\#(random.next())","type":"app"}}"#
            body += Array(line.utf8) + [0x0A]
        }
        return body
    }

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) }
    }

    @Test(arguments: [0, 1, 500, 4_000])
    func aBatchOfLinesComesBackWhole(lines: Int) throws {
        let body = Self.realisticBody(lines: lines, seed: UInt64(lines))
        let compressed = Gzip.compress(body)
        #expect(compressed.prefix(2) == Data([0x1F, 0x8B]), "a gzip member")
        #expect(try Gzip.decompress(compressed, limit: body.count) == Data(body))
        if lines >= 500 { #expect(compressed.count * 4 < body.count, "NDJSON compresses several times over") }
    }

    @Test(arguments: [1, 1_000, 65_536, 600_000])
    func incompressibleBytesComeBackWhole(count: Int) throws {
        let bytes = Self.randomBytes(count, seed: UInt64(count))
        let compressed = Gzip.compress(bytes)
        #expect(try Gzip.decompress(compressed, limit: count) == Data(bytes))
    }

    @Test func zlibsLevelsWriteWhatZlibReads() throws {
        let body = Self.realisticBody(lines: 300, seed: 9)
        for level: Int32 in [1, 6, 9] {
            #expect(try Gzip.decompress(Gzip.compress(body, zlibLevel: level), limit: body.count) == Data(body))
        }
    }

    @Test func batchesCompressedAtOnceOnSeveralThreadsComeBackWhole() async throws {
        let bodies = (0..<24).map { Self.realisticBody(lines: 200 + $0 * 10, seed: UInt64($0)) }
        let compressed = await withTaskGroup(of: (Int, Data).self) { group in
            for (index, body) in bodies.enumerated() {
                group.addTask { (index, Gzip.compress(body)) }
            }
            var results: [Int: Data] = [:]
            for await (index, data) in group { results[index] = data }
            return results
        }
        for (index, body) in bodies.enumerated() {
            #expect(try Gzip.decompress(compressed[index]!, limit: body.count) == Data(body))
        }
    }
}

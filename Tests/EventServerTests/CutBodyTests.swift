#if Server

import CompressNIO
import Foundation
import Hummingbird
import HummingbirdTesting
import MeasurementEvents
import NIOCore
import TestSupport
import Testing

/// A gzip body is read whole or refused whole, over a real socket: a stream cut at any byte, without its trailer,
/// or with a trailer that does not match gets 400 and stores nothing, so no receipt ever acknowledges lines that
/// were never read. Whole streams, several members one after another included, are read to their last line.
@Suite struct CutBodyTests {
    static func gzip(_ lines: [String]) throws -> [UInt8] {
        var plain = ByteBuffer(string: lines.joined(separator: "\n") + "\n")
        let compressed = try plain.compress(with: .gzip())
        return Array(compressed.readableBytesView)
    }

    static func post(_ client: some TestClientProtocol, _ bytes: [UInt8]) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/events", method: .post, headers: headers(encoding: "gzip"), body: ByteBuffer(bytes: bytes))
    }

    @Test func aSmallGzipBodyCutAtEveryByteIs400AndStoresNothing() async throws {
        let fixture = ServerFixture()
        let whole = try Self.gzip((0..<5).map { eventLine(id: "small-\($0)") })
        try await fixture.application().test(.live) { client in
            for length in 0..<whole.count {
                let response = try await Self.post(client, Array(whole[..<length]))
                #expect(response.status == .badRequest, "cut after \(length) of \(whole.count) bytes")
            }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    @Test func aLargeGzipBodyCutAtRandomPointsIs400AndStoresNothing() async throws {
        let fixture = ServerFixture()
        var random = SystemRandomNumberGenerator()
        let lines = (0..<3_000).map { index in
            eventLine(id: UUID().uuidString.lowercased(), ref: "r\(UInt32.random(in: 0...UInt32.max, using: &random))")
        }
        let whole = try Self.gzip(lines)
        #expect(whole.count > 20_000)
        let cuts = (0..<25).map { _ in Int.random(in: 1..<whole.count, using: &random) }
        try await fixture.application().test(.live) { client in
            for length in cuts {
                let response = try await Self.post(client, Array(whole[..<length]))
                #expect(response.status == .badRequest, "cut after \(length) of \(whole.count) bytes")
            }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    @Test func aMissingOrWrongTrailerIs400AndStoresNothing() async throws {
        let fixture = ServerFixture()
        let whole = try Self.gzip((0..<50).map { eventLine(id: "trailer-\($0)") })
        var wrongCRC = whole
        wrongCRC[whole.count - 8] ^= 0x01
        var wrongLength = whole
        wrongLength[whole.count - 4] ^= 0x01
        // FLG bits 5-7 are reserved: zlib refuses such a header, and so must every reader of ours.
        var reservedFlag = whole
        reservedFlag[3] |= 0x20
        var secondReservedFlag = whole + whole
        secondReservedFlag[whole.count + 3] |= 0x80
        let bodies = [
            ("without its trailer", Array(whole.dropLast(8))), ("with a wrong CRC-32", wrongCRC),
            ("with a wrong length", wrongLength), ("with garbage after it", whole + [0x00, 0x01, 0x02]),
            ("with a reserved header flag", reservedFlag),
            ("whose second member sets a reserved flag", secondReservedFlag),
        ]
        try await fixture.application().test(.live) { client in
            for (what, body) in bodies {
                let response = try await Self.post(client, body)
                #expect(response.status == .badRequest, "a body \(what)")
                #expect(String(buffer: response.body).contains("nothing of it was stored"), "a body \(what)")
            }
        }
        #expect(try fixture.storedEvents().isEmpty)
    }

    @Test func twoGzipMembersOneAfterTheOtherAreReadToTheLastLine() async throws {
        let fixture = ServerFixture()
        let first = try Self.gzip((0..<3).map { eventLine(id: "first-\($0)") })
        let second = try Self.gzip((0..<4).map { eventLine(id: "second-\($0)") })
        try await fixture.application().test(.live) { client in
            let response = try await Self.post(client, first + second)
            #expect(response.status == .ok)
            #expect(json(response)["accepted"] == .int(7))
        }
        #expect(try fixture.storedEvents().count == 7)
    }
}

#endif

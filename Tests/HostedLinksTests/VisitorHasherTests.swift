import Foundation
import Synchronization
import Testing

@testable import HostedLinks

@Suite struct VisitorHasherTests {
    /// A clock the test moves and a key source that counts the keys it hands out.
    final class Fixture: Sendable {
        let time = Mutex<TimeInterval>(1_700_000_000)
        let keys = Mutex<UInt64>(0)

        func hasher() -> VisitorHasher {
            VisitorHasher(
                now: { Date(timeIntervalSince1970: self.time.withLock { $0 }) },
                randomKey: {
                    self.keys.withLock {
                        $0 += 1
                        return ($0, ~$0)
                    }
                })
        }
    }

    @Test func sameWithinADayDifferentAcrossDays() {
        let fixture = Fixture()
        let hasher = fixture.hasher()
        let morning = hasher.visitor(address: "203.0.113.7", userAgent: "UA")
        fixture.time.withLock { $0 += 3_600 }
        #expect(hasher.visitor(address: "203.0.113.7", userAgent: "UA") == morning)
        #expect(hasher.visitor(address: "203.0.113.8", userAgent: "UA") != morning)
        #expect(hasher.visitor(address: "203.0.113.7", userAgent: "UA2") != morning)
        fixture.time.withLock { $0 += 86_400 }
        #expect(hasher.visitor(address: "203.0.113.7", userAgent: "UA") != morning)
        #expect(fixture.keys.withLock { $0 } == 2)
        #expect(!morning.contains("203") && morning.count == 16)
    }

    @Test func twoRealHashersDoNotAgree() {
        #expect(
            VisitorHasher().visitor(address: "::1", userAgent: nil)
                != VisitorHasher().visitor(address: "::1", userAgent: nil))
    }

    /// The reference vectors of the SipHash paper (key 00..0F, message 00..len-1).
    @Test func sipHashMatchesTheReferenceVectors() {
        let key: (UInt64, UInt64) = (0x0706_0504_0302_0100, 0x0F0E_0D0C_0B0A_0908)
        #expect(SipHash.hash([], key: key) == 0x726F_DB47_DD0E_0E31)
        #expect(SipHash.hash(Array(0..<15), key: key) == 0xA129_CA61_49BE_45E5)
        #expect(SipHash.hash(Array(0..<8), key: key) == 0x93F5_F579_9A93_2462)
    }
}

/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit pseudorandom function. With a random
/// 128-bit key its outputs cannot be linked to the input, nor to outputs under another key, without the key.
///
/// ```swift
/// SipHash.hash(Array(0..<15), key: (0x0706050403020100, 0x0F0E0D0C0B0A0908))   // 0xA129CA6149BE45E5
/// ```
enum SipHash {
    /// The SipHash-2-4 value of `message` under the key `(k0, k1)` (the key's bytes, little-endian).
    static func hash(_ message: [UInt8], key: (UInt64, UInt64)) -> UInt64 {
        var state = State(key: key)
        let whole = message.count / 8 * 8
        for start in stride(from: 0, to: whole, by: 8) {
            state.compress(word(message, start, 8))
        }
        let tail = word(message, whole, message.count - whole) | UInt64(message.count & 0xFF) << 56
        state.compress(tail)
        return state.finish()
    }

    private static func word(_ bytes: [UInt8], _ start: Int, _ count: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<count { value |= UInt64(bytes[start + index]) << (8 * UInt64(index)) }
        return value
    }

    private struct State {
        var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64

        init(key: (UInt64, UInt64)) {
            v0 = key.0 ^ 0x736f_6d65_7073_6575
            v1 = key.1 ^ 0x646f_7261_6e64_6f6d
            v2 = key.0 ^ 0x6c79_6765_6e65_7261
            v3 = key.1 ^ 0x7465_6462_7974_6573
        }

        mutating func round() {
            v0 &+= v1
            v1 = v1.rotatedLeft(13)
            v1 ^= v0
            v0 = v0.rotatedLeft(32)
            v2 &+= v3
            v3 = v3.rotatedLeft(16)
            v3 ^= v2
            v0 &+= v3
            v3 = v3.rotatedLeft(21)
            v3 ^= v0
            v2 &+= v1
            v1 = v1.rotatedLeft(17)
            v1 ^= v2
            v2 = v2.rotatedLeft(32)
        }

        mutating func compress(_ word: UInt64) {
            v3 ^= word
            round()
            round()
            v0 ^= word
        }

        mutating func finish() -> UInt64 {
            v2 ^= 0xFF
            for _ in 0..<4 { round() }
            return v0 ^ v1 ^ v2 ^ v3
        }
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}

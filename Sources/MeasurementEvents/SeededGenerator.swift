/// SplitMix64: a small, fast, deterministic random number generator, for everything in this package that
/// must be reproducible from a seed (seeded event ids, `alstats demo`, generated test data).
///
/// Not for secrets: its output is predictable from the seed.
package struct SeededGenerator: RandomNumberGenerator, Sendable {
    /// The generator's state; the seed is its first value.
    package var state: UInt64

    /// A generator starting from `seed`.
    package init(seed: UInt64) {
        state = seed
    }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

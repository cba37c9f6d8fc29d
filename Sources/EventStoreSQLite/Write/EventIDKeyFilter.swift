import EventStoreInterface

/// An in-memory Bloom filter over the keys of the id index (``EventIDKey``): "certainly not stored" or
/// "maybe stored".
///
/// A random id (a UUIDv4, or the hash of a line without id) is almost always new, and its lookup in the large
/// level of the index reads a random leaf of it from the file: at 10M events that level is about 170 MiB,
/// far more than the writer's page cache. ``EventIDIndex`` asks the filter first and looks up only the keys it
/// may hold: duplicates, and from 0.3% to 3.4% of new keys (docs/design/storage-layout.md).
///
/// A split-block Bloom filter (as in Apache Parquet): each key sets one bit in each of the eight 32-bit words
/// of one 256-bit block, so a test reads one cache line. It is sized for ``capacity`` keys at 8 bits each
/// (about 3.4% false positives when full, 0.3% when half full); ``EventIDIndex`` builds it for twice the keys
/// stored, or for the keys an ingest expects (``EventIDIndex/expectedNewKeys``), and builds it again once more
/// keys than its capacity are stored.
struct EventIDKeyFilter {
    /// The keys it is sized for.
    let capacity: Int
    private var blocks: [SIMD8<UInt32>]
    private let blockCount: UInt64

    /// The salts of the eight words (Parquet's split-block Bloom filter).
    private static let salts = SIMD8<UInt32>(
        0x47b6_137b, 0x4497_4d91, 0x8824_ad5b, 0xa2b7_289d, 0x7054_95c7, 0x2df1_424b, 0x9efc_4947, 0x5c6b_fb31)

    /// An empty filter for `capacity` keys (at least one block's 32): `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(capacity, 32)
        let count = (self.capacity + 31) / 32
        blockCount = UInt64(count)
        blocks = [SIMD8<UInt32>](repeating: .zero, count: count)
    }

    /// Adds `key`.
    mutating func insert(_ key: Int64) {
        let (block, mask) = position(of: key)
        blocks[block] |= mask
    }

    /// `false` when `key` was certainly never added; `true` when it may have been.
    func mayContain(_ key: Int64) -> Bool {
        let (block, mask) = position(of: key)
        return blocks[block] & mask == mask
    }

    /// The key's block, and the one bit it sets in each of the block's words. Keys of UUIDv7 ids are mostly
    /// time, so every key is mixed first (MurmurHash3's finaliser).
    private func position(of key: Int64) -> (Int, SIMD8<UInt32>) {
        var bits = UInt64(bitPattern: key)
        bits = (bits ^ (bits >> 33)) &* 0xFF51_AFD7_ED55_8CCD
        bits = (bits ^ (bits >> 33)) &* 0xC4CE_B9FE_1A85_EC53
        bits ^= bits >> 33
        let block = Int(truncatingIfNeeded: ((bits >> 32) &* blockCount) >> 32)
        let hash = SIMD8<UInt32>(repeating: UInt32(truncatingIfNeeded: bits))
        return (block, SIMD8(repeating: 1) &<< ((hash &* Self.salts) &>> 27))
    }
}

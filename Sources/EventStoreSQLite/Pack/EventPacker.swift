import EventStoreInterface
import MeasurementEvents

#if canImport(CZstd)
import CZstd
#endif

/// Compresses and expands ``PackedFields`` payloads with one of a database's dictionaries
/// (`event_pack_dictionaries`), trained on its own events.
///
/// A packed value is one format byte (1), the dictionary's id as LEB128, then a Zstandard frame compressed
/// with that dictionary. The dictionary is prepared once (`ZSTD_CDict`, `ZSTD_DDict`) and shared by every
/// thread; each call borrows a context from a small pool. On a platform without libzstd (Apple's SDKs)
/// nothing is packed and a packed value cannot be read: ``isAvailable`` is false there.
final class EventPacker: @unchecked Sendable {
    // @unchecked Sendable: the prepared dictionaries are immutable after init and Zstandard allows sharing them
    // between threads; the contexts are only used while taken from `pool`, under its lock.

    /// Whether this build can pack and read packed values.
    #if canImport(CZstd)
    static let isAvailable = true
    #else
    static let isAvailable = false
    #endif

    /// How many stored events a database needs before a dictionary is trained and its rows packed: fewer
    /// make a poor dictionary, and a small database gains nothing worth its plain columns.
    static let trainingThreshold = 4_096
    /// The largest dictionary trained, in bytes.
    static let dictionaryCapacity = 16_384
    /// The Zstandard level: the fastest, which with a trained dictionary packs these fields about as small
    /// as level 3 (docs/design/storage-layout.md, "Packed fields").
    static let level: Int32 = 1
    /// The format byte of a packed value.
    static let format: UInt8 = 1

    /// The dictionary's id in `event_pack_dictionaries`.
    let id: Int64
    #if canImport(CZstd)
    private let compressionDictionary: OpaquePointer
    private let decompressionDictionary: OpaquePointer
    /// A Zstandard context, used by one thread at a time: only while taken from its pool.
    private struct Context: @unchecked Sendable {
        let pointer: OpaquePointer
    }
    private let pool = StateLock<[Context]>([])
    private let decompressionPool = StateLock<[Context]>([])
    #endif

    /// Prepares dictionary `id`, or `nil` when this build cannot pack or the bytes are no dictionary.
    init?(id: Int64, dictionary: [UInt8]) {
        #if canImport(CZstd)
        self.id = id
        guard
            let compression = dictionary.withUnsafeBytes({
                ZSTD_createCDict($0.baseAddress, $0.count, Self.level)
            })
        else { return nil }
        guard let decompression = dictionary.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) })
        else {
            ZSTD_freeCDict(compression)
            return nil
        }
        compressionDictionary = compression
        decompressionDictionary = decompression
        #else
        return nil
        #endif
    }

    deinit {
        #if canImport(CZstd)
        for context in pool.withLock({ $0 }) { ZSTD_freeCCtx(context.pointer) }
        for context in decompressionPool.withLock({ $0 }) { ZSTD_freeDCtx(context.pointer) }
        ZSTD_freeCDict(compressionDictionary)
        ZSTD_freeDDict(decompressionDictionary)
        #endif
    }

    /// The largest payload a reader expands (64 MiB), and so the largest one packed: a row whose long fields take more
    /// keeps them unpacked.
    static let maximumPayload = 1 << 26

    /// Appends the packed value of `payload` to `output`.
    func pack(_ payload: [UInt8], to output: inout [UInt8]) {
        payload.withUnsafeBytes { pack($0, to: &output) }
    }

    /// ``pack(_:to:)-([UInt8],_)`` of a payload's bytes in place.
    func pack(_ payload: UnsafeRawBufferPointer, to output: inout [UInt8]) {
        #if canImport(CZstd)
        output.append(Self.format)
        Self.appendLEB128(UInt64(id), to: &output)
        let start = output.count
        let bound = ZSTD_compressBound(payload.count)
        output.append(contentsOf: repeatElement(0, count: bound))
        let context = pool.withLock { $0.popLast() } ?? Context(pointer: Self.newCompressionContext())
        let written = output.withUnsafeMutableBytes { buffer in
            ZSTD_compress_usingCDict(
                context.pointer, buffer.baseAddress! + start, bound, payload.baseAddress, payload.count,
                compressionDictionary)
        }
        pool.withLock { $0.append(context) }
        // Cannot fail: the output holds the bound, and the context and dictionary are valid.
        precondition(ZSTD_isError(written) == 0, "Zstandard failed to compress a payload")
        output.removeLast(bound - written)
        #endif
    }

    #if canImport(CZstd)
    private static func newCompressionContext() -> OpaquePointer {
        // ZSTD_compress_usingCDict writes the dictionary's own id into each frame (4 bytes) and no checksum:
        // a frame given the wrong dictionary is refused, not decoded into other text.
        ZSTD_createCCtx()!
    }
    #endif

    /// The payload of the Zstandard frame `frame` (a packed value after its header), or `nil` when it is damaged.
    func expand(frame: UnsafeRawBufferPointer) -> [UInt8]? {
        #if canImport(CZstd)
        let size = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
        guard size != ZSTD_CONTENTSIZE_ERROR, size != ZSTD_CONTENTSIZE_UNKNOWN, size <= Self.maximumPayload else {
            return nil
        }
        var payload = [UInt8](repeating: 0, count: Int(size))
        let context = decompressionPool.withLock { $0.popLast() } ?? Context(pointer: ZSTD_createDCtx()!)
        let read = payload.withUnsafeMutableBytes { output in
            ZSTD_decompress_usingDDict(
                context.pointer, output.baseAddress, output.count, frame.baseAddress, frame.count,
                decompressionDictionary)
        }
        decompressionPool.withLock { $0.append(context) }
        guard ZSTD_isError(read) == 0, read == payload.count else { return nil }
        return payload
        #else
        return nil
        #endif
    }

    /// The dictionary id and the frame of a packed value, or `nil` when its header is damaged.
    static func header(of packed: UnsafeRawBufferPointer) -> (id: Int64, frame: UnsafeRawBufferPointer)? {
        guard packed.count > 1, packed[0] == format else { return nil }
        var id: UInt64 = 0
        var shift: UInt64 = 0
        var offset = 1
        while offset < packed.count, shift < 63 {
            let byte = packed[offset]
            offset += 1
            id |= UInt64(byte & 0x7F) << shift
            shift += 7
            if byte < 0x80 {
                return (Int64(bitPattern: id), UnsafeRawBufferPointer(rebasing: packed[offset...]))
            }
        }
        return nil
    }

    /// Trains a dictionary of at most ``dictionaryCapacity`` bytes on `samples` (payloads).
    /// - Returns: `nil` when this build cannot pack or Zstandard's trainer finds the samples too few or too small.
    static func train(_ samples: [[UInt8]]) -> [UInt8]? {
        #if canImport(CZstd)
        guard samples.count >= 8 else { return nil }
        var joined: [UInt8] = []
        var sizes: [Int] = []
        for sample in samples {
            joined.append(contentsOf: sample)
            sizes.append(sample.count)
        }
        var dictionary = [UInt8](repeating: 0, count: dictionaryCapacity)
        let size = dictionary.withUnsafeMutableBytes { output in
            joined.withUnsafeBytes { input in
                ZDICT_trainFromBuffer(
                    output.baseAddress, output.count, input.baseAddress, sizes, UInt32(sizes.count))
            }
        }
        guard ZDICT_isError(size) == 0, size > 0 else { return nil }
        return Array(dictionary[..<size])
        #else
        return nil
        #endif
    }

    /// The id a dictionary is stored under (`alstats_pack_dictionary_id`): a 27-bit FNV-1a hash of its bytes
    /// (four bytes in each row's header), so that an id does not name two dictionaries (a training rolled back
    /// and done again trains another; the chance that both get one id is one in 134 million, and zstd would then
    /// still refuse the frame, whose own dictionary id differs).
    static func id(of dictionary: [UInt8]) -> Int64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in dictionary { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return Int64(hash >> 37)
    }

    static func appendLEB128(_ value: UInt64, to output: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            output.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        output.append(UInt8(value))
    }
}

extension EventPacker {
    /// The dictionary a writer packs with, shared with the store's ``SQLiteEventStore/encode(_:)``, which runs on other
    /// threads than the writer's.
    final class Slot: Sendable {
        private let packer = StateLock<EventPacker?>(nil)

        init() {}

        /// The packer, or `nil` while the database has no dictionary.
        var current: EventPacker? {
            get { packer.withLock { $0 } }
            set { packer.withLock { $0 = newValue } }
        }
    }
}

import Foundation
import MeasurementEvents

/// The rollup groups of a batch's lines read in place, found by their bytes, for both backends' row builders.
///
/// A group's signature (its bucket, success, name and dimensions, each text with its length) is hashed and compared
/// as bytes. So a line finds its group without a `String` made or hashed: hashing the ``RollupKey`` of every line
/// was a fourteenth of an ingest's reader. Equal signatures are equal keys, as ``RollupKey``'s `==` compares texts
/// by their bytes. A line's ``RollupKey`` is made only when its group is new to the batch:
///
/// ```swift
/// let signature = groups.signature(of: line, success: success, columns: columns)
/// if let known = groups.number(of: signature) { return known }
/// let number = keep(FlatRollupGroups.key(of: line, success: success, columns: columns))
/// groups.insert(signature, number: number)
/// ```
///
/// `columns` maps each field column's position (``EventColumns/fieldPosition(ofBindIndex:)``) to the index of its
/// field in the line's fields, or -1.
package struct FlatRollupGroups {
    /// A group's bytes, from ``signature(of:success:columns:)`` to ``number(of:)`` and ``insert(_:number:)``.
    package struct Signature {
        fileprivate var bytes: [UInt8]

        /// Adds a text (a marker, its length in four bytes and its bytes), or its absence.
        fileprivate mutating func add(_ text: UnsafeBufferPointer<UInt8>?) {
            guard let text else {
                bytes.append(0)
                return
            }
            bytes.append(1)
            withUnsafeBytes(of: UInt32(text.count).littleEndian) { bytes.append(contentsOf: $0) }
            bytes.append(contentsOf: text)
        }
    }

    /// The positions among the field columns of the rollup's dimensions, in the order of a signature and of
    /// ``key(of:success:columns:)``'s texts: ref, referer app, type, source host, error.
    private static let dimensions = [
        FieldName.ref, FieldName.refererAppName, FieldName.type, FieldName.sourceURLHost, FieldName.error,
    ]
    .map(EventColumns.fieldPosition(of:))

    /// Each slot the index in ``ranges`` of the group hashed there, or -1 (open addressing, at most half full).
    private var slots = [Int32](repeating: -1, count: 2_048)
    private var hashes: [UInt64] = []
    /// The groups' signatures, one after another, and each one's place there and number in the batch.
    private var stored: [UInt8] = []
    private var ranges: [Range<Int>] = []
    private var numbers: [Int32] = []
    /// The buffer of the signature being made, kept for its capacity.
    private var scratch: [UInt8] = []
    /// A seed drawn once per process, so that no input can choose keys that collide.
    private static let seed = UInt64.random(in: .min ... .max)

    /// No groups yet.
    package init() {}

    /// The signature of `line`'s group: its bucket, `success`, name and dimensions.
    package mutating func signature(of line: FlatLine, success: Int64?, columns: [Int]) -> Signature {
        var bytes = scratch
        scratch = []
        bytes.removeAll(keepingCapacity: true)
        let bucket = RollupKey.start(of: line.timestamp, size: RollupKey.bucketMilliseconds)
        withUnsafeBytes(of: bucket.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(success.map { UInt8(truncatingIfNeeded: $0) } ?? 0xFF)
        var signature = Signature(bytes: bytes)
        signature.add(line.name)
        let fields = line.fields
        for position in Self.dimensions {
            signature.add(columns[position] < 0 ? nil : fields[columns[position]].value)
        }
        return signature
    }

    /// The ``RollupKey`` of `line`'s group, for a group not met before.
    package static func key(of line: FlatLine, success: Int64?, columns: [Int]) -> RollupKey {
        let fields = line.fields
        func text(_ dimension: Int) -> String? {
            let index = columns[dimensions[dimension]]
            return index < 0 ? nil : String(decoding: fields[index].value, as: UTF8.self)
        }
        return RollupKey(
            timestamp: line.timestamp, name: String(decoding: line.name, as: UTF8.self), ref: text(0),
            refererAppName: text(1), type: text(2), success: success, sourceURLHost: text(3), error: text(4))
    }

    /// The number of the group of `signature`, if one was inserted.
    package mutating func number(of signature: Signature) -> Int32? {
        let hash = Self.hash(signature.bytes)
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        defer { scratch = signature.bytes }
        while slots[slot] >= 0 {
            let index = Int(slots[slot])
            if hashes[index] == hash, same(ranges[index], signature.bytes) { return numbers[index] }
            slot = (slot + 1) & mask
        }
        return nil
    }

    /// Keeps the group of `signature` (not yet kept) as number `number`.
    package mutating func insert(_ signature: Signature, number: Int32) {
        if 2 * (ranges.count + 1) > slots.count { grow() }
        let hash = Self.hash(signature.bytes)
        let start = stored.count
        stored.append(contentsOf: signature.bytes)
        hashes.append(hash)
        ranges.append(start..<stored.count)
        numbers.append(number)
        place(ranges.count - 1, hash: hash)
        scratch = signature.bytes
    }

    private mutating func place(_ index: Int, hash: UInt64) {
        let mask = slots.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while slots[slot] >= 0 { slot = (slot + 1) & mask }
        slots[slot] = Int32(index)
    }

    private mutating func grow() {
        slots = [Int32](repeating: -1, count: 2 * slots.count)
        for index in hashes.indices { place(index, hash: hashes[index]) }
    }

    private func same(_ range: Range<Int>, _ bytes: [UInt8]) -> Bool {
        guard range.count == bytes.count else { return false }
        return stored.withUnsafeBufferPointer { stored in
            bytes.withUnsafeBufferPointer { bytes in
                memcmp(stored.baseAddress! + range.lowerBound, bytes.baseAddress!, bytes.count) == 0
            }
        }
    }

    /// A 64-bit hash of `bytes`, eight at a time (a multiply and a shift each), seeded.
    private static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            var hash = seed ^ UInt64(raw.count)
            var offset = 0
            while raw.count - offset >= 8 {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                hash ^= hash >> 29
                offset += 8
            }
            var tail: UInt64 = 0
            while offset < raw.count {
                tail = tail << 8 | UInt64(raw[offset])
                offset += 1
            }
            hash = (hash ^ tail) &* 0x9E37_79B9_7F4A_7C15
            return hash ^ (hash >> 32)
        }
    }
}

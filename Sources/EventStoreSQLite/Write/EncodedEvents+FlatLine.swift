import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension EncodedEvents {
    /// The scratch of a line read in place while it is encoded, kept from line to line for its capacity.
    struct FlatScratch {
        /// Each field column's field: its index in the line's fields, or -1 (by position among the columns).
        var columns = [Int](repeating: -1, count: EventColumns.fields.count)
        /// The fields kept in `extra`, by index in the line's fields.
        var extra: [Int] = []
        /// The `extra` column's JSON text.
        var json: [UInt8] = []
    }
}

extension EncodedEvents.Builder {
    /// Encodes a line read in place (``NDJSONCodec/scan(_:into:)``) at `position` into the row its decoded event
    /// gives (``append(_:position:)-(MeasurementEvent,_)``): the same values bound, the same rollup group, byte for
    /// byte, without a `String` per field, a dictionary or a redacted copy made.
    ///
    /// - Returns: `false`, adding nothing, for a line that redaction would change, that counts in the hosted
    ///   links' rollups (a hit, an arrival at a link URL), or that is a device's loss record: its decoded event
    ///   is appended instead, the one way such events are encoded.
    mutating func append(_ line: FlatLine, position: Int32) -> Bool {
        guard line.isWritableAsRead(redactedWith: redactor) else { return false }
        let name = line.name
        let fields = line.fields
        let success = mapColumns(of: fields)
        let columns = flat.columns
        if FlatLine.equals(name, EventName.navIn), columns[Self.targetPosition] >= 0,
            LinkRollupKey.isLinkURL(fields[columns[Self.targetPosition]].value)
        {
            return false  // an arrival at a hosted link's URL: its link rollup is the decoded event's
        }
        let first = values.count
        EventColumns.bindID(line.id, at: 1, to: &values)
        values.text(3, utf8: name)
        writeExtra(of: fields)
        bindFields(of: line)
        let row = EncodedEvents.Row(
            id: line.id, key: EventIDKey.key(line.id), timestamp: line.timestamp, values: first..<values.count,
            success: success, group: 0, link: nil, visitor: nil, deviceLoss: nil, position: position)
        add(row, number: number(ofGroupOf: line, success: success))
        return true
    }

    /// The number of the rollup group of `line` (its columns mapped): found by the group's bytes, its
    /// ``RollupKey`` made only when the group is new to the batch.
    private mutating func number(ofGroupOf line: FlatLine, success: Int64?) -> Int32 {
        let fields = line.fields
        let columns = flat.columns
        let bucket = RollupKey.start(of: line.timestamp, size: RollupKey.bucketMilliseconds)
        var signature = flatGroups.signature(bucket: bucket, success: success, name: line.name)
        for position in Self.dimensionPositions {
            signature.add(columns[position] < 0 ? nil : fields[columns[position]].value)
        }
        if let known = flatGroups.number(of: signature) { return known }
        func text(_ position: Int) -> String? {
            columns[position] < 0 ? nil : String(decoding: fields[columns[position]].value, as: UTF8.self)
        }
        let group = RollupKey(
            timestamp: line.timestamp, name: String(decoding: line.name, as: UTF8.self),
            ref: text(Self.dimensions.ref), refererAppName: text(Self.dimensions.refererAppName),
            type: text(Self.dimensions.type), success: success, sourceURLHost: text(Self.dimensions.sourceURLHost),
            error: text(Self.dimensions.error))
        let number = number(newGroup: group)
        flatGroups.insert(signature, number: number)
        return number
    }

    /// Fills ``EncodedEvents/FlatScratch/columns`` and ``EncodedEvents/FlatScratch/extra`` from `fields`, as
    /// ``EventColumns/columns(of:extra:column:)`` sorts a decoded event's fields.
    /// - Returns: the integer `success` ("1" or "0"; any other value is an extra field).
    private mutating func mapColumns(of fields: [FlatLine.Field]) -> Int64? {
        for column in flat.columns.indices { flat.columns[column] = -1 }
        flat.extra.removeAll(keepingCapacity: true)
        var success: Int64?
        for (index, field) in fields.enumerated() {
            guard let bindIndex = EventColumns.bindIndex(ofKey: field.key) else {
                flat.extra.append(index)
                continue
            }
            if bindIndex == EventColumns.successIndex {
                if field.value.count == 1, field.value[0] == UInt8(ascii: "1") || field.value[0] == UInt8(ascii: "0") {
                    success = field.value[0] == UInt8(ascii: "1") ? 1 : 0
                } else {
                    flat.extra.append(index)
                }
                continue
            }
            flat.columns[EventColumns.fieldPosition(ofBindIndex: bindIndex)] = index
        }
        return success
    }

    /// Writes the extra fields' JSON into ``EncodedEvents/FlatScratch/json`` as
    /// ``EventColumns/encodeExtra(_:)`` writes it: keys in byte order, strings escaped alike. Empty when none.
    private mutating func writeExtra(of fields: [FlatLine.Field]) {
        flat.json.removeAll(keepingCapacity: true)
        guard !flat.extra.isEmpty else { return }
        flat.extra.sort { FlatLine.precedes(fields[$0].key, fields[$1].key) }
        flat.json.append(UInt8(ascii: "{"))
        for (offset, index) in flat.extra.enumerated() {
            if offset > 0 { flat.json.append(UInt8(ascii: ",")) }
            JSONValue.writeString(utf8: fields[index].key, to: &flat.json)
            flat.json.append(UInt8(ascii: ":"))
            JSONValue.writeString(utf8: fields[index].value, to: &flat.json)
        }
        flat.json.append(UInt8(ascii: "}"))
    }

    /// Binds the field columns and `extra` of `line` (mapped and written), packing the long ones when the batch
    /// is packed, by the rules of ``EventColumns/pack(_:into:extra:packer:scratch:)``.
    private mutating func bindFields(of line: FlatLine) {
        let fields = line.fields
        let columns = flat.columns
        let json = flat.json
        json.withUnsafeBufferPointer { extra in
            guard packer != nil else {
                for (position, field) in columns.enumerated() where field >= 0 {
                    values.text(Int32(position + 4), utf8: fields[field].value)
                }
                if !extra.isEmpty { values.text(EventColumns.extraIndex, utf8: extra) }
                return
            }
            withUnsafeTemporaryAllocation(of: UnsafeBufferPointer<UInt8>?.self, capacity: 6) { slots in
                slots.initialize(repeating: nil)
                for (position, field) in columns.enumerated() where field >= 0 {
                    let bindIndex = Int32(position + 4)
                    if let slot = PackedFields.slot(ofBindIndex: bindIndex) {
                        slots[slot] = fields[field].value
                    } else {
                        values.text(bindIndex, utf8: fields[field].value)
                    }
                }
                if !extra.isEmpty { slots[5] = extra }
                scratch.payload.removeAll()
                for (slot, value) in slots.enumerated() {
                    if let value { scratch.payload.add(utf8: value, slot: slot) }
                }
                if scratch.payload.bytes.count > EventPacker.maximumPayload
                    || Self.keepsUnpacked(line.name, extra: extra)
                {
                    for (slot, value) in slots.enumerated() {
                        if let value { values.text(PackedFields.bindIndices[slot], utf8: value) }
                    }
                } else if !scratch.payload.isEmpty {
                    deferPacking(scratch.payload.bytes)
                }
            }
        }
    }

    /// ``EventColumns/keepsUnpacked(_:extra:)`` of a line's name and `extra` text read in place.
    static func keepsUnpacked(_ name: UnsafeBufferPointer<UInt8>, extra: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !extra.isEmpty else { return false }
        if FlatLine.equals(name, EventName.linkStore) || FlatLine.equals(name, EventName.linkInstall)
            || FlatLine.equals(name, EventName.firstOpen)
        {
            return true
        }
        guard FlatLine.equals(name, EventName.navIn) else { return false }
        let marker: StaticString = #""deferred":"1""#
        let needle = UnsafeBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount)
        guard extra.count >= needle.count else { return false }
        for start in 0...(extra.count - needle.count)
        where extra[start] == needle[0] && memcmp(extra.baseAddress! + start, needle.baseAddress!, needle.count) == 0 {
            return true
        }
        return false
    }

    /// The positions among the field columns of the rollup's dimensions.
    private static let dimensions = (
        ref: position(of: FieldName.ref), type: position(of: FieldName.type),
        refererAppName: position(of: FieldName.refererAppName), sourceURLHost: position(of: FieldName.sourceURLHost),
        error: position(of: FieldName.error)
    )
    private static let targetPosition = position(of: FieldName.targetURL)
    /// The dimensions' positions in the order of a group's signature (``FlatGroups/Signature``).
    private static let dimensionPositions = [
        dimensions.ref, dimensions.type, dimensions.refererAppName, dimensions.sourceURLHost, dimensions.error,
    ]

    /// The position among the field columns of `name`'s column.
    private static func position(of name: String) -> Int {
        guard let bindIndex = EventColumns.bindIndex(of: name) else {
            preconditionFailure("\(name) is a field with a column of its own")
        }
        return EventColumns.fieldPosition(ofBindIndex: bindIndex)
    }
}

/// The rollup groups of a batch's lines read in place, by their bytes: a group's signature (its bucket, success,
/// name and dimensions, each text with its length) is hashed and compared as bytes, which finds a group without a
/// `String` made or hashed (hashing the ``RollupKey`` of every line was a fourteenth of an ingest's reader). Equal
/// signatures are equal keys, as ``RollupKey``'s `==` compares texts by their bytes.
struct FlatGroups {
    /// A group's bytes while it is made (the scratch of ``FlatGroups/signature(bucket:success:name:)``).
    struct Signature {
        fileprivate var bytes: [UInt8]

        /// Adds a text (its length and bytes, as a payload holds a slot's), or its absence.
        mutating func add(_ text: UnsafeBufferPointer<UInt8>?) {
            guard let text else {
                bytes.append(0xFF)
                return
            }
            PackedFields.Builder.appendText(text, to: &bytes)
        }
    }

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

    /// A signature begun with a group's bucket, success and name.
    mutating func signature(bucket: Int64, success: Int64?, name: UnsafeBufferPointer<UInt8>) -> Signature {
        var bytes = scratch
        scratch = []
        bytes.removeAll(keepingCapacity: true)
        withUnsafeBytes(of: bucket.littleEndian) { bytes.append(contentsOf: $0) }
        bytes.append(success.map { UInt8(truncatingIfNeeded: $0) } ?? 0xFF)
        var signature = Signature(bytes: bytes)
        signature.add(name)
        return signature
    }

    /// The number of the group of `signature`, if one was inserted.
    mutating func number(of signature: Signature) -> Int32? {
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
    mutating func insert(_ signature: Signature, number: Int32) {
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

import EventStoreInterface

/// The long fields of an event that a packed row keeps in `events.packed` instead of their own columns: the
/// four URLs that are mostly unique, `refererURL`, and `extra` (migration 0016, docs/design/storage-layout.md,
/// "Packed fields").
///
/// The payload, before compression, is one byte whose bit `slot` says which slots are present, then for each
/// present slot in order a LEB128 length and that many bytes of the column's text, exactly as the column held
/// it. Only ``EventPacker`` writes it, only ``unpack(_:)`` reads it.
enum PackedFields {
    /// The packed columns' bind indices in Statements/insert_event.sql, in slot order.
    static let bindIndices: [Int32] = [10, 12, 13, 15, 17, EventColumns.extraIndex]
    /// The packed columns, in slot order (the names of their columns in `events`).
    static let columns = ["input_url", "target_url", "referer_url", "output_url", "source_url", "extra"]
    /// The bind index of `packed` in Statements/insert_event.sql.
    static let packedIndex = EventColumns.extraIndex + 1

    /// The slot of the column bound at `index`, or `nil` for a column that is never packed.
    @inline(__always)
    static func slot(ofBindIndex index: Int32) -> Int? {
        switch index {
        case 10: 0
        case 12: 1
        case 13: 2
        case 15: 3
        case 17: 4
        case EventColumns.extraIndex: 5
        default: nil
        }
    }

    /// The slot of a field kept in a packed column (`extra` is slot 5 and has no field), or `nil`.
    static func slot(ofColumn column: String) -> Int? { columns.firstIndex(of: column) }

    /// The buffers one thread packs rows with, kept from row to row for their capacity.
    struct Scratch {
        var payload = Builder()
        var packed: [UInt8] = []
    }

    /// Builds a payload: ``add(_:slot:)`` in slot order, then ``bytes``.
    struct Builder {
        private(set) var bytes: [UInt8] = [0]

        /// Forgets the last payload, keeping the buffer's capacity.
        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            bytes.append(0)
        }

        /// Whether no slot was added.
        var isEmpty: Bool { bytes[0] == 0 }

        /// Adds `value` in `slot`; slots must come in increasing order.
        mutating func add(_ value: some StringProtocol, slot: Int) {
            bytes[0] |= 1 << UInt8(slot)
            EventPacker.appendLEB128(UInt64(value.utf8.count), to: &bytes)
            bytes.append(contentsOf: value.utf8)
        }

        /// ``add(_:slot:)`` of UTF-8 bytes read in place.
        mutating func add(utf8 value: UnsafeBufferPointer<UInt8>, slot: Int) {
            bytes[0] |= 1 << UInt8(slot)
            Self.appendText(value, to: &bytes)
        }

        /// Appends a text as a slot holds it: its length in LEB128, then its bytes.
        static func appendText(_ value: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
            EventPacker.appendLEB128(UInt64(value.count), to: &bytes)
            bytes.append(contentsOf: value)
        }
    }

    /// The texts of a payload, by slot (`nil` for a slot not present).
    /// - Returns: `nil` when the bytes are no payload (a damaged row).
    static func unpack(_ payload: UnsafeRawBufferPointer) -> [String?]? {
        guard let mask = payload.first, mask < 1 << columns.count else { return nil }
        var values = [String?](repeating: nil, count: columns.count)
        var offset = 1
        for slot in 0..<columns.count where mask & (1 << UInt8(slot)) != 0 {
            var count = 0
            var shift = 0
            while true {
                guard offset < payload.count, shift < 35 else { return nil }
                let byte = payload[offset]
                offset += 1
                count |= Int(byte & 0x7F) << shift
                shift += 7
                if byte < 0x80 { break }
            }
            guard count <= payload.count - offset else { return nil }
            values[slot] = String(
                decoding: UnsafeRawBufferPointer(rebasing: payload[offset..<offset + count]), as: UTF8.self)
            offset += count
        }
        return offset == payload.count ? values : nil
    }
}

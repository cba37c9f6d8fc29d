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
        /// The line's fields sorted into its row's columns.
        var sorted = FlatLineColumns()
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
        flat.sorted.sort(fields)
        let success = flat.sorted.success
        let columns = flat.sorted.columns
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
        let columns = flat.sorted.columns
        let signature = flatGroups.signature(of: line, success: success, columns: columns)
        if let known = flatGroups.number(of: signature) { return known }
        let number = number(newGroup: FlatRollupGroups.key(of: line, success: success, columns: columns))
        flatGroups.insert(signature, number: number)
        return number
    }

    /// Writes the extra fields' JSON into ``EncodedEvents/FlatScratch/json``
    /// (``FlatLineColumns/appendExtraJSON(of:to:)``). Empty when none.
    private mutating func writeExtra(of fields: [FlatLine.Field]) {
        flat.json.removeAll(keepingCapacity: true)
        flat.sorted.appendExtraJSON(of: fields, to: &flat.json)
    }

    /// Binds the field columns and `extra` of `line` (mapped and written), packing the long ones when the batch
    /// is packed, by the rules of ``EventColumns/pack(_:into:extra:packer:scratch:)``.
    private mutating func bindFields(of line: FlatLine) {
        let fields = line.fields
        let columns = flat.sorted.columns
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

    private static let targetPosition = EventColumns.fieldPosition(of: FieldName.targetURL)
}

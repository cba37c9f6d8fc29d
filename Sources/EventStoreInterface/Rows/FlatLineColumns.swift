import MeasurementEvents

/// A line read in place (``FlatLine``) sorted into its row's columns as ``EventColumns/columns(of:extra:column:)``
/// sorts a decoded event's fields: each field column's field, the fields kept in `extra` and the integer `success`.
/// Both backends' row builders keep one from line to line, for its capacity.
package struct FlatLineColumns {
    /// Each field column's field: its index in the line's fields, or -1 (by position among the columns,
    /// ``EventColumns/fieldPosition(ofBindIndex:)``).
    package private(set) var columns = [Int](repeating: -1, count: EventColumns.fields.count)
    /// The fields kept in `extra`, by index in the line's fields, their keys in byte order (as
    /// ``EventColumns/encodeExtra(_:)`` writes them).
    package private(set) var extra: [Int] = []
    /// The line's `success` "1" or "0" as an integer; any other value is an extra field.
    package private(set) var success: Int64?

    /// No line yet.
    package init() {}

    /// Sorts `fields` (a line's) into ``columns``, ``extra`` and ``success``.
    package mutating func sort(_ fields: [FlatLine.Field]) {
        for column in columns.indices { columns[column] = -1 }
        extra.removeAll(keepingCapacity: true)
        success = nil
        for (index, field) in fields.enumerated() {
            guard let bindIndex = EventColumns.bindIndex(ofKey: field.key) else {
                extra.append(index)
                continue
            }
            if bindIndex == EventColumns.successIndex {
                if field.value.count == 1, field.value[0] == UInt8(ascii: "1") || field.value[0] == UInt8(ascii: "0") {
                    success = field.value[0] == UInt8(ascii: "1") ? 1 : 0
                } else {
                    extra.append(index)
                }
                continue
            }
            columns[EventColumns.fieldPosition(ofBindIndex: bindIndex)] = index
        }
        extra.sort { FlatLine.precedes(fields[$0].key, fields[$1].key) }
    }

    /// Appends the JSON of the ``extra`` fields among `fields` (the line's) to `json` as
    /// ``EventColumns/encodeExtra(_:)`` writes it: keys in byte order, strings escaped alike; nothing when none.
    package func appendExtraJSON(of fields: [FlatLine.Field], to json: inout [UInt8]) {
        guard !extra.isEmpty else { return }
        json.append(UInt8(ascii: "{"))
        for (offset, index) in extra.enumerated() {
            if offset > 0 { json.append(UInt8(ascii: ",")) }
            JSONValue.writeString(utf8: fields[index].key, to: &json)
            json.append(UInt8(ascii: ":"))
            JSONValue.writeString(utf8: fields[index].value, to: &json)
        }
        json.append(UInt8(ascii: "}"))
    }
}

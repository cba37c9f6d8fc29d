import CSQLite

/// The text and blob values of runs of a statement (one row's, or a whole slice's), copied into one buffer that
/// the statement binds in place (`SQLITE_STATIC`) instead of SQLite copying each value again.
///
/// Bound the usual way (`SQLITE_TRANSIENT`), every value of every row costs SQLite an allocation from its
/// global allocator (behind a mutex), a copy and a free: about a fifth of the writer's time on the insert of
/// an event with a dozen text columns (docs/design/storage-layout.md, "Values bound in place"). Here each value is
/// copied once into a buffer kept from row to row (or filled for many rows on another thread: ``PackedSlice``),
/// and ``run(_:values:)`` binds pointers into it, runs the statement and clears the bindings before the buffer
/// can change.
///
/// ```swift
/// values.removeAll()
/// values.text(3, event.name)
/// try values.run(insert)      // binds ?3 in place, steps, resets, clears every binding
/// ```
package struct BoundValues {
    /// 16 bytes: a batch of encoded requests waiting for the writer holds one per value of each of its events.
    private struct Value {
        var start: Int
        /// The parameter's index, negated for a blob.
        private var signedIndex: Int32
        /// SQLite binds at most `Int32.max` bytes a value.
        var count: Int32

        init(index: Int32, start: Int, count: Int, isBlob: Bool) {
            self.start = start
            signedIndex = isBlob ? -index : index
            self.count = Int32(count)
        }

        var index: Int32 { signedIndex < 0 ? -signedIndex : signedIndex }
        var isBlob: Bool { signedIndex < 0 }
    }

    private var bytes: [UInt8] = []
    private var values: [Value] = []

    /// Values for about `rows` rows of `bytesPerRow` bytes.
    package init(rows: Int = 1, bytesPerRow: Int = 16_384) {
        bytes.reserveCapacity(rows * bytesPerRow)
        values.reserveCapacity(rows * 16)
    }

    /// How many values were added: the start of the next row's values, for ``run(_:values:)``.
    package var count: Int { values.count }

    /// Forgets the values of the previous row, keeping the buffers' capacity.
    package mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// Adds `value`'s UTF-8 as the text of parameter `index` (1-based).
    package mutating func text(_ index: Int32, _ value: String) {
        let start = bytes.count
        if value.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: value.utf8)
        }
        values.append(Value(index: index, start: start, count: bytes.count - start, isBlob: false))
    }

    /// Adds UTF-8 bytes (read in place from a line) as the text of parameter `index` (1-based).
    package mutating func text(_ index: Int32, utf8 value: UnsafeBufferPointer<UInt8>) {
        let start = bytes.count
        bytes.append(contentsOf: value)
        values.append(Value(index: index, start: start, count: value.count, isBlob: false))
    }

    /// Reserves parameter `index` (1-based) for a blob given later (``fillBlob(at:_:)``), among this row's values.
    /// - Returns: the value's position, for ``fillBlob(at:_:)``.
    package mutating func blobPlaceholder(_ index: Int32) -> Int {
        values.append(Value(index: index, start: bytes.count, count: 0, isBlob: true))
        return values.count - 1
    }

    /// Gives the blob reserved at `position` by ``blobPlaceholder(_:)``.
    package mutating func fillBlob(at position: Int, _ blob: UnsafeRawBufferPointer) {
        let start = bytes.count
        bytes.append(contentsOf: blob)
        values[position] = Value(index: values[position].index, start: start, count: blob.count, isBlob: true)
    }

    /// The values at `range` in bind order: each parameter's index, whether it is a blob, and its bytes (tests
    /// compare two ways of encoding the same row by them).
    package func entries(in range: Range<Int>) -> [(index: Int32, isBlob: Bool, bytes: [UInt8])] {
        values[range].map {
            (index: $0.index, isBlob: $0.isBlob, bytes: Array(bytes[$0.start..<$0.start + Int($0.count)]))
        }
        .sorted { $0.index < $1.index }
    }

    /// Adds `blob` as the blob of parameter `index` (1-based).
    package mutating func blob(_ index: Int32, _ blob: UnsafeRawBufferPointer) {
        let start = bytes.count
        bytes.append(contentsOf: blob)
        values.append(Value(index: index, start: start, count: blob.count, isBlob: true))
    }

    /// The text of parameter `index` among the values at `range`, if one of them binds it.
    package func text(at index: Int32, in range: Range<Int>) -> String? {
        guard let value = values[range].first(where: { $0.index == index && !$0.isBlob }) else { return nil }
        return String(decoding: bytes[value.start..<value.start + Int(value.count)], as: UTF8.self)
    }

    /// Binds the values at `range` (by default all) to `statement`, along with whatever it already holds bound
    /// by value (integers), runs it to its end, resets it and clears all its bindings, so that no pointer into
    /// the buffer outlives the call.
    package func run(_ statement: SQLiteStatement, values range: Range<Int>? = nil) throws(SQLiteError) {
        let failure = bytes.withUnsafeBufferPointer { buffer -> SQLiteError? in
            defer {
                sqlite3_reset(statement.handle)
                sqlite3_clear_bindings(statement.handle)
            }
            let base = UnsafeRawPointer(buffer.baseAddress) ?? UnsafeRawPointer(bitPattern: 1)!
            for value in values[range ?? values.indices] {
                let pointer = base + value.start
                if value.isBlob {
                    csqlite_bind_blob_static(statement.handle, value.index, pointer, value.count)
                } else {
                    csqlite_bind_text_static(
                        statement.handle, value.index, pointer.assumingMemoryBound(to: CChar.self), value.count)
                }
            }
            var status = sqlite3_step(statement.handle)
            while status == SQLITE_ROW { status = sqlite3_step(statement.handle) }
            // Read before the reset, as ``SQLiteStatement/step()`` does.
            return status == SQLITE_DONE ? nil : statement.connection.error(status, doing: "running a statement")
        }
        if let failure { throw failure }
    }
}

extension SQLiteEventStore {
    /// Registers the SQL functions every connection of the store has (`alstats_field`, `alstats_id_key` and the
    /// packing functions) on another program's database `handle`: what the AlstatsSQLite loadable extension does
    /// when the `sqlite3` shell or Python loads it (docs/sql.md, "Packed fields in other tools").
    /// - Returns: `nil`, or the function that could not be registered and SQLite's status.
    package static func registerFunctions(onHandle handle: OpaquePointer) -> (name: String, status: Int32)? {
        let status = EventIDKey.register(onHandle: handle)
        guard status == 0 else { return ("alstats_id_key", status) }
        return EventPackFunctions.register(onHandle: handle)
    }
}

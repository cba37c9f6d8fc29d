import EventStoreInterface
import SQLiteSupport

/// Packing (docs/design/storage-layout.md, "Packed fields"): the dictionary the writer packs new rows with, and
/// packing a database's stored rows.
/// What a writer knows of packing beyond the shared ``EventPacker/Slot``.
struct PackingState {
    /// The dictionary this writer packs with (read per event without the slot's lock); the slot is set to it once it
    /// is there to stay within the transaction.
    var packer: EventPacker?
    /// The last rowid this writer's commit trained a dictionary at without getting one (too few long fields).
    var triedAt: Int64 = 0
    /// The first rowid of the open transaction's rows that were encoded unpacked while this writer packs (see
    /// ``EventWriter/noteUnpackedRows(in:)``), packed at commit.
    var unpackedFrom: Int64?
    /// The statement reading the database's latest dictionary, prepared at its first use.
    var select: SQLiteStatement?
}

extension EventWriter {
    /// Forgets the packing dictionary after a rollback: the transaction may have been the one that trained it.
    /// The next transaction reads it again if it is stored.
    func forgetPacker() {
        packing.triedAt = 0  // the rows it was tried at may be gone too
        packing.unpackedFrom = nil
        guard packing.packer != nil else { return }
        packing.packer = nil
        packers.current = nil
    }

    /// Refuses a batch packed with a dictionary other than the one this writer packs with: only a rolled-back
    /// transaction that trained it can leave one (the batch was encoded while it was open), and its rows would
    /// name a dictionary the database does not hold.
    func checkPacking(of batches: [EncodedEvents]) throws(SQLiteError) {
        for batch in batches where batch.dictionary != nil && batch.dictionary != packing.packer?.id {
            throw SQLiteError(
                .io, path: connection.path,
                "a batch was packed with a dictionary that a rolled-back transaction held: write its events again")
        }
    }

    /// Reads the database's latest packing dictionary, if it has one, into ``PackingState/packer`` (not into
    /// ``packers``: the caller publishes it once nothing can take it back).
    func loadPacker() throws(SQLiteError) {
        let select: SQLiteStatement
        if let prepared = packing.select {
            select = prepared
        } else {
            select = try connection.prepare(
                "SELECT id, dictionary FROM event_pack_dictionaries ORDER BY created_ms DESC, rowid DESC LIMIT 1")
            packing.select = select
        }
        defer { select.reset() }
        guard try select.step() else { return }
        packing.packer = EventPacker(id: select.int64(0), dictionary: select.blob(1))
    }

    /// Packs the database (Statements/pack_stored_events.sql) once a write takes it to
    /// ``EventPacker/trainingThreshold`` events, when this writer was asked to, inside the transaction (so that
    /// few rows are rewritten: a packed row leaves free space in its page). Packing that fails, or trains no
    /// dictionary, leaves the database as it was and the write goes on.
    func packIfDue() throws(SQLiteError) {
        guard packsFields, packing.packer == nil, EventPacker.isAvailable, hasUncommittedRows else { return }
        let last = try connection.scalarInt("SELECT ifnull(max(rowid), 0) FROM events")
        guard last >= Int64(EventPacker.trainingThreshold),
            last - packing.triedAt >= Int64(EventPacker.trainingThreshold)
        else { return }
        packing.triedAt = last
        // A write goes on when packing fails: its rows are stored unpacked, and a later write tries again.
        _ = try? packStoredEvents()
    }

    /// Trains the database's dictionary and redefines its views (once), then packs its rows not packed yet, inside
    /// the open transaction.
    /// - Returns: whether the database is packed now (`false`: too few events, or no dictionary could be
    ///   trained; nothing changed).
    /// - Throws: when the database fails (nothing changed then either).
    func packStoredEvents() throws(SQLiteError) -> Bool {
        guard EventPacker.isAvailable else { return false }
        try connection.execute("SAVEPOINT pack_stored_events")
        do throws(SQLiteError) {
            if packing.packer == nil {
                try connection.execute(Self.packStoredEventsSQL, doing: "packing the stored events")
                try loadPacker()
            }
            if packing.packer != nil { try packUnpackedEvents(from: Int64.min) }
        } catch {
            packing.packer = nil
            packers.current = nil
            try? connection.execute("ROLLBACK TO pack_stored_events")
            try? connection.execute("RELEASE pack_stored_events")
            throw error
        }
        if packing.packer == nil { try connection.execute("ROLLBACK TO pack_stored_events") }
        try connection.execute("RELEASE pack_stored_events")
        // Published only now: a batch encoded with a dictionary that the catch above took back would be refused.
        packers.current = packing.packer
        return packing.packer != nil
    }

    /// Packs the rows from rowid `first` on that are not packed (Statements/pack_unpacked_events.sql).
    func packUnpackedEvents(from first: Int64) throws(SQLiteError) {
        let update = try connection.prepare(Self.packUnpackedEventsSQL)
        update.bind(1, Int64(EventPacker.maximumPayload))
        update.bind(2, first)
        try update.run()
    }

    /// Notes that `batches` are about to be inserted: when some were encoded unpacked while this writer packs
    /// (a request's or an ingest batch's encoding read the dictionary before the training), their rows are
    /// packed at commit (``packUnpackedEvents(from:)`` from the first of them).
    func noteUnpackedRows(in batches: [EncodedEvents]) throws(SQLiteError) {
        guard packing.packer != nil, packing.unpackedFrom == nil,
            batches.contains(where: { $0.dictionary == nil && !$0.isEmpty })
        else { return }
        packing.unpackedFrom = try connection.scalarInt("SELECT ifnull(max(rowid), 0) + 1 FROM events")
    }

    /// Packs the rows noted by ``noteUnpackedRows(in:)``, before a commit.
    func packNotedRows() throws(SQLiteError) {
        guard let first = packing.unpackedFrom else { return }
        try packUnpackedEvents(from: first)
        packing.unpackedFrom = nil
    }

    static let packStoredEventsSQL = EmbeddedSQL.statement("pack_stored_events")
    static let packUnpackedEventsSQL = EmbeddedSQL.statement("pack_unpacked_events")
}

import EventStore
import MeasurementEvents
import PostgresNIO

/// The events of one ``PostgresEventStore/writeBatches(_:losses:)`` call, ready to write: redacted, one event per
/// id (the first of the call, as the SQLite store keeps the first), sorted by id so that concurrent writers
/// claim ids in one order.
struct PostgresWritePlan {
    /// An event of the call and the batch it came in.
    struct Candidate {
        var batch: Int
        var id: String
        var event: MeasurementEvent
    }

    /// The events, one per id, by id.
    var candidates: [Candidate]
    /// How many batches the call had.
    var batchCount: Int

    /// The plan for `batches` (already redacted).
    init(batches: [[MeasurementEvent]]) {
        batchCount = batches.count
        var seen: Set<String> = []
        var candidates: [Candidate] = []
        for (batch, events) in batches.enumerated() {
            for event in events {
                let id = event.id.description
                if seen.insert(id).inserted { candidates.append(Candidate(batch: batch, id: id, event: event)) }
            }
        }
        candidates.sort { $0.id.utf8.lexicographicallyPrecedes($1.id.utf8) }
        self.candidates = candidates
    }

    /// The bindings of `insert_events.sql` for `events` (the candidates', in the plan's order): one array per
    /// column.
    static func eventBindings(_ events: [MeasurementEvent]) -> PostgresBindings {
        let fieldCount = EventColumns.fields.count
        var columns = [[String?]](repeating: [], count: fieldCount)
        var success: [Int64?] = []
        var extras: [String?] = []
        var extra: [(String, String)] = []
        let successIndex = EventColumns.fields.firstIndex { $0.field == FieldName.success } ?? 1
        let indexes = Dictionary(uniqueKeysWithValues: EventColumns.fields.enumerated().map { ($1.field, $0) })
        for event in events {
            var row = [String?](repeating: nil, count: fieldCount)
            var successValue: Int64?
            extra.removeAll(keepingCapacity: true)
            for (field, value) in event.fields {
                guard let index = indexes[field] else {
                    extra.append((field, value))
                    continue
                }
                if index == successIndex {
                    switch value {
                    case "1": successValue = 1
                    case "0": successValue = 0
                    default: extra.append((field, value))
                    }
                } else {
                    row[index] = value
                }
            }
            for index in 0..<fieldCount where index != successIndex { columns[index].append(row[index]) }
            success.append(successValue)
            extras.append(extra.isEmpty ? nil : EventColumns.encodeExtra(&extra))
        }
        var binds = PostgresBindings(capacity: fieldCount + 4)
        binds.append(events.map(\.id.description))
        binds.append(events.map(\.timestamp))
        binds.append(events.map(\.name))
        for index in 0..<fieldCount {
            binds.append(index == successIndex ? PostgresNullableArray(success) : PostgresNullableArray(columns[index]))
        }
        binds.append(PostgresNullableArray(extras))
        return binds
    }
}

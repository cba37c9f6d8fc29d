#if Server

import MeasurementEvents
import NIOCore
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// The write plan's order, its matching of claimed ids, and its `COPY` lines; no server needed.
struct PostgresWritePlanTests {
    static let uuids = [
        "0192f5c3-8a1b-7c4d-8e2f-000000000002", "0192f5c3-8a1b-7c4d-8e2f-000000000001",
        "f192f5c3-8a1b-7c4d-8e2f-000000000001", "00000000-0000-0000-0000-000000000000",
    ]
    /// Ids kept as text: uppercase, short, one that sorts between UUIDs by its bytes, empty, and one with a tab.
    static let texts = [
        "ZZZ", "0192F5C3-8A1B-7C4D-8E2F-000000000001", "1-text", "é-text", "0192f5c3-8a1b-7c4d-8e2f", "", "a\tb",
    ]

    /// The line at `position` of `rows`, with its newline.
    static func line(_ position: Int, of rows: PostgresEventRows) -> String {
        let range = rows.range(of: position)
        return rows.text.getString(at: range.lowerBound, length: range.count) ?? ""
    }

    /// One id per candidate, the first event of each kept, sorted by the ids' bytes as `COLLATE "C"` sorts them
    /// (UUIDs and text ids mixed).
    @Test func candidatesAreTheFirstOfEachIdInByteOrder() {
        let ids = Self.uuids + Self.texts
        let first = ids.map { MeasurementEvent(id: EventID($0), name: EventName.navIn, timestamp: 1) }
        let again = ids.reversed().map { MeasurementEvent(id: EventID($0), name: EventName.navOut, timestamp: 2) }
        let plan = PostgresWritePlan(batches: [first, [], again], redactor: Redactor())
        let expected = ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(plan.candidates.map(\.id.description) == expected)
        #expect(plan.candidates.allSatisfy { $0.batch == 0 } && plan.timestamps.allSatisfy { $0 == 1 })
        #expect(plan.batchCount == 3)
    }

    /// The claim's rows in the plan's order are matched in one walk; in any other order by lookup, with the same
    /// answer.
    @Test func claimedIdsAreFoundInAnyOrder() {
        let ids = Self.uuids + Self.texts
        let plan = PostgresWritePlan(
            batches: [ids.map { MeasurementEvent(id: EventID($0), name: EventName.navIn, timestamp: 1) }],
            redactor: Redactor())
        let sorted = plan.candidates.map(\.id.description)
        let returned = sorted.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)
        let expected = sorted.indices.map { $0 % 3 != 1 }
        #expect(plan.claimed(returned) == expected)
        #expect(plan.claimed(returned.reversed()) == expected)
        #expect(plan.claimed([]) == Array(repeating: false, count: sorted.count))
        #expect(plan.claimed(sorted) == Array(repeating: true, count: sorted.count))
    }

    /// Each line holds the id, time, name, the field columns (`\N` when absent, `success` as 1 or 0), and `extra`,
    /// escaped; the lines go in time order (ties by id), the claim's lines (the ids, escaped) in the plan's; events
    /// of one rollup group share it.
    @Test func copyLinesAndRollupGroups() {
        let events = [
            MeasurementEvent(
                id: EventID("b-2"), name: EventName.navOut,
                fields: [FieldName.success: "0", FieldName.targetURL: "https://x.test/a\tb", "custom": "c\\d"],
                timestamp: -1_700_000_000_123),
            MeasurementEvent(id: EventID("a\t1"), name: EventName.navIn, fields: [FieldName.ref: "r"], timestamp: 0),
            MeasurementEvent(
                id: EventID("d-4"), name: EventName.navOut, fields: [FieldName.success: "1"],
                timestamp: -1_700_000_000_100),
            MeasurementEvent(
                id: EventID("c-3"), name: EventName.navOut, fields: [FieldName.success: "1"],
                timestamp: -1_700_000_000_100),
        ]
        let plan = PostgresWritePlan(batches: [events], redactor: Redactor())
        let rows = plan.batches[0]
        #expect(plan.candidates.map(\.id.description) == ["a\t1", "b-2", "c-3", "d-4"])
        #expect(plan.candidates.map(\.position) == [1, 0, 3, 2])
        #expect(plan.timeOrder() == [1, 2, 3, 0])
        // The rows' lines in time order, as the write sends them.
        let text = plan.timeOrder().map { Self.line(plan.candidates[$0].position, of: rows) }.joined()
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 5 && lines[4].isEmpty)
        #expect(rows.ends.last == rows.text.readableBytes)
        func columns(_ line: Substring) -> [String: String] {
            let values = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Dictionary(uniqueKeysWithValues: zip(PostgresWritePlan.columns, values))
        }
        #expect(lines.dropLast().map { columns($0)["id"] } == ["b-2", "c-3", "d-4", "a\\t1"])
        #expect(String(buffer: plan.idLines()) == "a\\t1\nb-2\nc-3\nd-4\n")
        #expect(
            String(buffer: PostgresWritePlan.idLines(plan.idLines(), skipping: [false, true, true, false]))
                == "a\\t1\nd-4\n")
        let last = columns(lines[3])
        #expect(last["ts_ms"] == "0" && last["name"] == EventName.navIn)
        #expect(last["ref"] == "r" && last["success"] == "\\N" && last["extra"] == "\\N")
        let first = columns(lines[0])
        #expect(first["ts_ms"] == "-1700000000123" && first["success"] == "0")
        #expect(first["target_url"] == "https://x.test/a\\tb")
        #expect(first["extra"] == #"{"custom":"c\\\\d"}"#)
        #expect(columns(lines[1])["extra"] == "\\N")
        // Groups are numbered in the events' order.
        #expect(rows.groups.count == 3 && rows.group == [0, 1, 2, 2])
        #expect(rows.groups[2].success == 1 && rows.groups[1].ref == "r" && rows.groups[0].success == 0)
    }

    /// The rollup upserts' lock order is a strict order by bytes: two texts that differ only in Unicode
    /// normalisation (two rows of a rollup table) are never taken for one, and every writer sorts them alike.
    @Test func theRollupLockOrderComparesTextByItsBytes() {
        let composed: [String?] = ["feed", "caf\u{E9}"]
        let decomposed: [String?] = ["feed", "cafe\u{301}"]
        #expect(PostgresRollups.order(decomposed, composed) && !PostgresRollups.order(composed, decomposed))
        let keys: [[String?]] = [composed, ["feed", "f"], decomposed, ["feed", nil], [nil, "x"]]
        let sorted = PostgresRollups.inLockOrder(keys) { $0 }
        let expected: [[String?]] = [[nil, "x"], ["feed", nil], decomposed, composed, ["feed", "f"]]
        #expect(sorted.map { $0.map { $0?.utf8.map { $0 } } } == expected.map { $0.map { $0?.utf8.map { $0 } } })
        for key in keys { #expect(!PostgresRollups.order(key, key)) }
    }
}

#endif

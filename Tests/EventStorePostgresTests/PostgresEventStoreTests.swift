#if Server

import EventIngest
import EventReport
import EventStoreSQLite
import MeasurementEvents
import PostgresNIO
import PostgresTestSupport
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStorePostgres

/// The PostgreSQL store against a real server (`.ci/postgres`), each test in a database of its own.
@Suite(.enabled(if: PostgresTestDatabase.shouldRun, "set ALSTATS_TEST_POSTGRES_URL (bash .ci/postgres swift test)"))
struct PostgresEventStoreTests {
    static func event(_ id: String, at timestamp: Int64 = 1_774_137_600_000, ref: String = "feed") -> MeasurementEvent {
        MeasurementEvent(
            id: EventID(id), name: EventName.navOut, fields: ["ref": ref, "success": "1", "type": "app"],
            timestamp: timestamp)
    }

    @Test func anIDIsStoredOnceWithinABatchAcrossBatchesAndAcrossCalls() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let first = [Self.event("a"), Self.event("b"), Self.event("a", ref: "other")]
            let second = [Self.event("b"), Self.event("c", at: 1_780_000_000_000)]
            #expect(try await store.writeBatches([first, second]) == [2, 1])
            #expect(try await store.writeBatches([second, first]) == [0, 0])
            #expect(try await store.count() == 3)
            var refs: [String: String] = [:]
            try await store.forEachEvent { refs[$0.id.description] = $0.fields["ref"] }
            #expect(refs == ["a": "feed", "b": "feed", "c": "feed"], "the first event of an id is the one kept")
            let rows = try await store.rows(for: ReportQuery())
            #expect(rows.groups.map(\.count).reduce(0, +) == 3, "rollups count only the events stored")
            await store.close()
        }
    }

    /// The month partitions are made from the timestamps of the batch, which jump back and forth between months:
    /// every event lies in its own month's partition, and only the one before 1900 in the default partition (a
    /// month left to it would also make that month's partition impossible to create later).
    @Test func eachEventLiesInItsMonthsPartitionWhenABatchJumpsBetweenMonths() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let march: Int64 = 1_774_137_600_000  // 2026-03-22
            let day: Int64 = 86_400_000
            // June's first instant is June's only one, right after a time in May (a month's end is not in it).
            let june: Int64 = 1_780_272_000_000
            let times = [
                march, march + day, march + 20 * day, march - 30 * day, march + 2 * day, march + 50 * day, june,
                -2_300_000_000_000, march + 21 * day, march + 3 * day, march + 10 * day,
            ]
            let events = times.enumerated().map { Self.event("e\($0.offset)", at: $0.element) }
            #expect(try await store.writeBatches([events]) == [events.count])
            #expect(try await store.writeBatches([[Self.event("later", at: march + 9 * day)]]) == [1])
            let placed = try await PostgresTestDatabase.column(
                url,
                "SELECT tableoid::regclass::text || ' ' || id FROM events ORDER BY ts_ms, id", as: String.self)
            #expect(
                placed == [
                    "events_before_1900 e7", "events_2026_02 e3", "events_2026_03 e0", "events_2026_03 e1",
                    "events_2026_03 e4", "events_2026_03 e9", "events_2026_03 later", "events_2026_04 e10",
                    "events_2026_04 e2", "events_2026_04 e8", "events_2026_05 e5", "events_2026_06 e6",
                ])
            await store.close()
        }
    }

    /// A new month's partition is made without waiting for the transactions that are writing or reading `events`
    /// (another server's batch, a strict ingest that runs for minutes, an export): it is attached (`SHARE UPDATE
    /// EXCLUSIVE` on `events`), not made with `CREATE TABLE ... PARTITION OF` (`ACCESS EXCLUSIVE`, which waited for
    /// them all), and `events` has no default partition, which `ATTACH` would lock too (until Migrations/postgres/0007 the
    /// write waited here for the transaction that wrote 1850's event and read every partition).
    @Test func aNewMonthsPartitionIsMadeWhileAnotherTransactionWritesAndReadsEvents() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let march: Int64 = 1_774_137_600_000  // 2026-03-22
            #expect(try await store.writeBatches([[Self.event("march", at: march)]]) == [1])
            try await PostgresTestDatabase.withConnection(url) { writer in
                try await writer.query("BEGIN", logger: PostgresTestDatabase.logger)
                try await writer.query(
                    PostgresQuery(
                        unsafeSQL: "INSERT INTO events (id, ts_ms, name) VALUES ('open', \(march + 1), 'al_nav_in'), "
                            + "('old', -3786825600000, 'al_nav_in')"),
                    logger: PostgresTestDatabase.logger)
                try await writer.query("SELECT count(*) FROM events", logger: PostgresTestDatabase.logger)
                let done = Locked(false)
                let write = Task {
                    defer { done.withLock { $0 = true } }
                    return try await store.writeBatches([[Self.event("july", at: march + 110 * 86_400_000)]])
                }
                for _ in 0..<200 where !done.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(50)) }
                #expect(done.withLock { $0 }, "the write of a new month waited for the open transaction")
                try await writer.query("ROLLBACK", logger: PostgresTestDatabase.logger)
                #expect(try await write.value == [1])
            }
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text || ' ' || id FROM events ORDER BY ts_ms", as: String.self)
            #expect(placed == ["events_2026_03 march", "events_2026_07 july"])
            await store.close()
        }
    }

    /// The partitions of times outside the months, `events_before_1900` and `events_after_9999` (Migrations/postgres/0007), meet
    /// the month partitions where ``PostgresEventStore/monthPartition(of:)`` says the months begin and end: every
    /// event is stored, each in the partition the store names for it (which it summarises).
    @Test func theTimesOutsideTheMonthsHaveTheirPartitionsWhereTheMonthsEnd() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let times: [Int64] = [
                -9_000_000_000_000_000, -2_208_988_800_001, -2_208_988_800_000, 253_402_300_799_999,
                253_402_300_800_000, 9_000_000_000_000_000,
            ]
            let events = times.enumerated().map { Self.event("t\($0.offset)", at: $0.element) }
            #expect(try await store.writeBatches([events]) == [events.count])
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text FROM events ORDER BY ts_ms", as: String.self)
            let named = times.map {
                PostgresEventStore.monthPartition(of: $0)?.name ?? PostgresEventStore.outOfRangePartition(of: $0)
            }
            #expect(placed == named)
            #expect(
                placed == [
                    "events_before_1900", "events_before_1900", "events_1900_01", "events_9999_12", "events_after_9999",
                    "events_after_9999",
                ])
            await store.close()
        }
    }

    /// Migrations/postgres/0007 moves the rows of the default partition `events_other` where they belong and leaves `events`
    /// without a default partition: times before 1900 and after 9999 into `events_before_1900` and
    /// `events_after_9999`; events of months inside them (late events of a month detached by hand, which had no
    /// partition) into new partitions of their months, `events_YYYY_MM`, or `events_YYYY_MM_1` beside the detached
    /// table, which is left as it was. The months are worked out in UTC whatever the session's time zone (here
    /// UTC+14), before 1970 too.
    @Test func theDefaultPartitionsRowsMoveWhereTheyBelong() async throws {
        let march: Int64 = 1_772_323_200_000  // 2026-03-01
        let april: Int64 = 1_775_001_600_000
        let february: Int64 = 1_769_904_000_000
        try await PostgresTestDatabase.with { url in
            try await PostgresTestDatabase.withConnection(url) { connection in
                try await PostgresMigrator(location: "test").migrate(
                    connection, upTo: 6, logger: PostgresTestDatabase.logger)
                for statement in [
                    "CREATE TABLE events_2026_03 PARTITION OF events FOR VALUES FROM (\(march)) TO (\(april))",
                    "INSERT INTO events (id, ts_ms, name) VALUES ('archived', \(march + 5), 'al_nav_in')",
                    "ALTER TABLE events DETACH PARTITION events_2026_03",
                    "INSERT INTO events (id, ts_ms, name, ref) VALUES ('old', -3786825600000, 'al_nav_in', 'a'), "
                        + "('far', 253402300800001, 'al_nav_out', 'b'), ('late', \(march + 7), 'al_nav_in', 'c'), "
                        + "('feb', \(february), 'al_nav_in', 'd'), ('end', \(march - 1), 'al_nav_in', 'e')",
                    "INSERT INTO events (id, ts_ms, name, ref) VALUES ('may60', -304387200000, 'al_nav_in', 'f'), "
                        + "('june60', -302486400000, 'al_nav_in', 'g'), ('lastmay60', -302486400001, 'al_nav_in', 'h')",
                    "INSERT INTO event_ids (id) VALUES ('archived'), ('old'), ('far'), ('late'), ('feb'), ('end'), "
                        + "('may60'), ('june60'), ('lastmay60')",
                    "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET timezone = %L', current_database(), "
                        + "'Pacific/Kiritimati'); END $$",
                ] {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresTestDatabase.logger)
                }
            }
            let store = try await PostgresEventStore.open(url: url)
            #expect(try await store.schemaVersion == PostgresEventStore.latestSchemaVersion)
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text || ' ' || id || ' ' || ref FROM events ORDER BY ts_ms",
                as: String.self)
            #expect(
                placed == [
                    "events_before_1900 old a", "events_1960_05 may60 f", "events_1960_05 lastmay60 h",
                    "events_1960_06 june60 g", "events_2026_02 feb d", "events_2026_02 end e",
                    "events_2026_03_1 late c", "events_after_9999 far b",
                ])
            let archived = try await PostgresTestDatabase.column(url, "SELECT id FROM events_2026_03", as: String.self)
            #expect(archived == ["archived"])
            let defaults = try await PostgresTestDatabase.column(
                url,
                "SELECT count(*) FROM pg_partition_tree('events') t JOIN pg_class c ON c.oid = t.relid "
                    + "WHERE pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT'",
                as: Int64.self)
            #expect(defaults == [0])
            let indexed = try await PostgresTestDatabase.column(
                url,
                "SELECT count(*) FROM pg_indexes WHERE tablename IN "
                    + "('events_before_1900', 'events_after_9999', 'events_1960_05', 'events_1960_06', "
                    + "'events_2026_02', 'events_2026_03_1') AND indexdef LIKE '%USING brin (ts_ms int8_minmax_multi_ops)%'",
                as: Int64.self)
            #expect(indexed == [6])
            #expect(try await store.writeBatches([[Self.event("late"), Self.event("new", at: march + 9)]]) == [1])
            await store.close()
        }
    }

    /// Under `REPEATABLE READ` as the database's default, a writer that waited for the lock of partition creation
    /// while another session attached the month's partition finds it (the catalogs as they are now, not as its
    /// snapshot had them) and writes into it, instead of making `events_2026_07_1`, whose attach would overlap.
    @Test func aMonthAttachedWhileAWriterWaitsForTheLockIsFoundUnderRepeatableRead() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresTestDatabase.admin(
                url,
                "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', "
                    + "current_database(), 'repeatable read'); END $$")
            let store = try await PostgresEventStore.open(url: url)
            let july: Int64 = 1_782_864_000_000  // 2026-07-01
            let august: Int64 = 1_785_542_400_000
            try await PostgresTestDatabase.withConnection(url) { other in
                let logger = PostgresTestDatabase.logger
                try await other.query("BEGIN", logger: logger)
                try await other.query(
                    PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(PostgresEventStore.partitionLockKey))"),
                    logger: logger)
                let write = Task { try await store.writeBatches([[Self.event("july", at: july + 5)]]) }
                // The write waits for the lock, its snapshot taken.
                _ = try await PostgresTestDatabase.waitForLockWait(url, on: "advisory")
                try await other.query(
                    PostgresQuery(
                        unsafeSQL: "CREATE TABLE events_2026_07 (LIKE events INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"),
                    logger: logger)
                try await other.query(
                    PostgresQuery(
                        unsafeSQL: "ALTER TABLE events ATTACH PARTITION events_2026_07 FOR VALUES FROM (\(july)) TO "
                            + "(\(august))"),
                    logger: logger)
                try await other.query("COMMIT", logger: logger)
                #expect(try await write.value == [1])
            }
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text FROM events", as: String.self)
            #expect(placed == ["events_2026_07"])
            await store.close()
        }
    }

    /// Opening a store waits for another process's migrations however long they take: only reaching the server is
    /// timed (here 10 s, room for a slow connect while the other suites make their databases, while the lock of
    /// migrations is held for 11 s after the store waits for it). Before, the migrations ran inside that time, and a
    /// second server starting during a long migration failed with "no connection within 10 s". An opening that
    /// fails before it waits is reported as its own error.
    @Test func openingWaitsForAnotherProcesssMigrationsPastTheConnectTimeout() async throws {
        try await PostgresTestDatabase.with { url in
            try await PostgresTestDatabase.withConnection(url) { other in
                let logger = PostgresTestDatabase.logger
                try await other.query(
                    PostgresQuery(unsafeSQL: "SELECT pg_advisory_lock(\(PostgresMigrator.lockKey))"), logger: logger)
                let opening = Task {
                    try await PostgresEventStore.open(
                        url: url, options: PostgresEventStore.Options(connectTimeout: .seconds(10)))
                }
                // The opening store has connected and waits for the lock: held past its connect timeout from here.
                do {
                    _ = try await PostgresTestDatabase.waitForLockWait(url, on: "advisory")
                } catch {
                    try await other.query(
                        PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(PostgresMigrator.lockKey))"),
                        logger: logger)
                    await (try opening.value).close()  // the opening's own error, if it failed
                    throw error
                }
                try await Task.sleep(for: .seconds(11))
                try await other.query(
                    PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(PostgresMigrator.lockKey))"), logger: logger)
                let store = try await opening.value
                #expect(try await store.schemaVersion == PostgresEventStore.latestSchemaVersion)
                await store.close()
            }
        }
    }

    /// A month's partition detached (archived) or dropped by hand while a store runs: the store's write of a late
    /// event of it fails once (`no partition of relation "events" found for row`), and the store forgets the
    /// months it knew and writes again, making the month anew: `events_2026_03` when the table is gone,
    /// `events_2026_03_1` beside a detached one, which it leaves alone. Another store finds that partition.
    @Test func aMonthDetachedOrDroppedByHandGetsANewPartitionForItsLateEvents() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let march: Int64 = 1_774_137_600_000  // 2026-03-22
            #expect(try await store.writeBatches([[Self.event("first", at: march)]]) == [1])
            try await PostgresTestDatabase.admin(url, "DROP TABLE events_2026_03")
            #expect(try await store.writeBatches([[Self.event("second", at: march + 1)]]) == [1])
            try await PostgresTestDatabase.admin(url, "ALTER TABLE events DETACH PARTITION events_2026_03")
            #expect(try await store.writeBatches([[Self.event("third", at: march + 2)]]) == [1])
            let other = try await PostgresEventStore.open(url: url)
            #expect(try await other.writeBatches([[Self.event("fourth", at: march + 3)]]) == [1])
            #expect(try await other.writeBatches([[Self.event("second", at: march + 4)]]) == [0], "its id stays taken")
            let placed = try await PostgresTestDatabase.column(
                url, "SELECT tableoid::regclass::text || ' ' || id FROM events ORDER BY ts_ms", as: String.self)
            #expect(placed == ["events_2026_03_1 third", "events_2026_03_1 fourth"])
            let detached = try await PostgresTestDatabase.column(url, "SELECT id FROM events_2026_03", as: String.self)
            #expect(detached == ["second"])
            await store.close()
            await other.close()
        }
    }

    /// A batch of new ids is claimed with one `COPY event_ids`; a batch that also holds stored ids, after new ones
    /// in id order, fails that `COPY` part way and is claimed again with `ON CONFLICT DO NOTHING` in the same
    /// transaction: the new ids are stored once, the stored ones keep their first event, the rollups and
    /// completeness count what the batch really stored, and no claim of the failed `COPY` is left behind.
    @Test func aBatchMixingNewAndStoredIDsStoresOnlyTheNewOnes() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            #expect(try await store.writeBatches([[Self.event("m"), Self.event("x")]]) == [2])
            #expect(!store.claimsMeetStoredIDs.withLock { $0 }, "the next write tries COPY")
            // Later ids at earlier times: the events' lines (in time order) and the claim (in id order) differ.
            let mixed = ["a", "b", "m", "q", "x", "z"].enumerated().map { offset, id in
                Self.event(id, at: 1_774_137_600_000 - Int64(offset) * 60_000, ref: "second")
            }
            #expect(try await store.writeBatches([mixed], losses: [.bufferFull: 1]) == [4])
            #expect(store.claimsMeetStoredIDs.withLock { $0 }, "after a stored id, the next write claims at once")
            #expect(try await store.writeBatches([[Self.event("n")]]) == [1], "a later batch of new ids is claimed")
            #expect(!store.claimsMeetStoredIDs.withLock { $0 }, "a claim that met no stored id goes back to COPY")
            #expect(try await store.writeBatches([[Self.event("o"), Self.event("a")]]) == [1])
            var refs: [String: String] = [:]
            var minutesBefore: [String: Int64] = [:]
            try await store.forEachEvent {
                refs[$0.id.description] = $0.fields["ref"]
                minutesBefore[$0.id.description] = (1_774_137_600_000 - $0.timestamp) / 60_000
            }
            #expect(
                refs == [
                    "a": "second", "b": "second", "m": "feed", "n": "feed", "o": "feed", "q": "second", "x": "feed",
                    "z": "second",
                ])
            #expect(minutesBefore == ["a": 0, "b": 1, "m": 0, "n": 0, "o": 0, "q": 3, "x": 0, "z": 5])
            let rows = try await store.rows(for: ReportQuery())
            #expect(rows.groups.map(\.count).reduce(0, +) == 8, "rollups count only the events stored")
            #expect(try await store.completeness() == ["dropped": ["buffer_full": 1]])
            let claims = try await PostgresTestDatabase.column(
                url, "SELECT id FROM event_ids ORDER BY id", as: String.self)
            #expect(claims == ["a", "b", "m", "n", "o", "q", "x", "z"])
            await store.close()
        }
    }

    @Test func migrationsApplyOnceFromEmptyEvenWithTwoProcessesStartingAtOnce() async throws {
        try await PostgresTestDatabase.with { url in
            async let one = PostgresEventStore.open(url: url)
            async let two = PostgresEventStore.open(url: url)
            let stores = try await [one, two]
            for store in stores { #expect(try await store.schemaVersion == PostgresEventStore.latestSchemaVersion) }
            let again = try await PostgresEventStore.open(url: url)
            let recorded = try await PostgresTestDatabase.column(
                url, "SELECT version FROM schema_migrations ORDER BY version", as: Int64.self)
            #expect(recorded == PostgresSQL.migrations.compactMap(\.migrationVersion).map { Int64($0) })
            for store in stores + [again] { await store.close() }
        }
    }

    @Test func aDatabaseMigratedByANewerAlstatsIsRefused() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            await store.close()
            try await PostgresTestDatabase.admin(url, "INSERT INTO schema_migrations (version, name) VALUES (999, 'x')")
            await #expect {
                _ = try await PostgresEventStore.open(url: url)
            } throws: { error in
                (error as? StoreError)?.kind == .newerSchema && "\(error)".contains("999")
            }
        }
    }

    @Test func twoWritersWithOverlappingIDsStoreEachOnceWithExactRollups() async throws {
        try await PostgresTestDatabase.with { url in
            let events = Array(Set(parityEvents(count: 3_000, seed: 7).map(\.id))).sorted().enumerated().map {
                Self.event($1.description, at: 1_774_137_600_000 + Int64($0) * 61_000, ref: "r\($0 % 5)")
            }
            let one = try await PostgresEventStore.open(url: url)
            let two = try await PostgresEventStore.open(url: url)
            let left = Array(events[..<2_000])
            let right = Array(events[1_000...].reversed())
            async let storedByOne = Self.writeInBatches(left, to: one)
            async let storedByTwo = Self.writeInBatches(right, to: two)
            let total = try await storedByOne + storedByTwo
            #expect(total == events.count)
            #expect(try await one.count() == events.count)
            let rows = try await one.rows(for: ReportQuery())
            #expect(rows.groups.map(\.count).reduce(0, +) == events.count)
            try await one.rebuildRollups()
            let rebuilt = try await one.rows(for: ReportQuery())
            #expect(Set(rows.groups) == Set(rebuilt.groups), "the written rollups are those recomputed from the events")
            #expect(rows.buckets == rebuilt.buckets)
            await one.close()
            await two.close()
        }
    }

    /// A write in line after another claims nothing before the other has claimed: started first, and waiting for
    /// the other's turn before the other starts, it still loses the shared id to the write before it in the line.
    /// (Without the wait it would have written before the other starts.)
    @Test func aWriteInLineWaitsForTheClaimsOfTheWriteBeforeIt() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let first = WriteTurn()
            let second = WriteTurn()
            let later = Task {
                try await store.writeBatches(
                    [[Self.event("shared", ref: "later"), Self.event("only-later")]], losses: [:], after: first,
                    claimed: second)
            }
            let deadline = ContinuousClock.now + .seconds(60)
            while await first.waitingCount == 0 {
                guard ContinuousClock.now < deadline else {
                    await first.open()
                    _ = try? await later.value
                    await store.close()
                    Issue.record("the later write did not wait for the turn of the write before it within 60 s")
                    return
                }
                try await Task.sleep(for: .milliseconds(1))
            }
            let earlier = try await store.writeBatches(
                [[Self.event("shared", ref: "earlier")]], losses: [:], after: nil, claimed: first)
            #expect(earlier == [1])
            #expect(try await later.value == [1])
            await second.wait()
            var export: [UInt8] = []
            try await store.export(since: Int64.min, until: Int64.max) { export += $0 }
            let text = String(decoding: export, as: UTF8.self)
            #expect(text.contains("earlier") && !text.contains("\"later\""), "\(text)")
            await store.close()
        }
    }

    /// A write in line after another leaves the ids the write before holds out of its claim: the event of such an id
    /// is a duplicate (the earlier one is kept), its redaction is still counted, and its claim meets no stored id (a
    /// claim of it would wait for the write before and fail the optimistic `COPY`).
    @Test func aWriteInLineDoesNotClaimTheIDsTheWriteBeforeHolds() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            var repeated = Self.event("shared", ref: "later")
            repeated.fields["note"] = #"{"\u0061ccess_token":"Tk9hiddenValue1", "cut": "#
            let first = WriteTurn()
            let second = WriteTurn()
            async let earlier = store.writeBatches(
                [[Self.event("shared", ref: "earlier"), Self.event("only-earlier")]], losses: [:], after: nil,
                claimed: first)
            async let later = store.writeBatches(
                [[repeated, Self.event("only-later")]], losses: [:], after: first, claimed: second)
            #expect(try await earlier == [2])
            #expect(try await later == [1])
            #expect(!store.claimsMeetStoredIDs.withLock { $0 }, "the later claim met no stored id")
            #expect(await second.heldIDs == [EventID("shared"), EventID("only-later")])
            var refs: [String: String] = [:]
            try await store.forEachEvent { refs[$0.id.description] = $0.fields["ref"] }
            #expect(refs == ["shared": "earlier", "only-earlier": "feed", "only-later": "feed"])
            #expect(try await store.completeness() == ["altered": ["redacted_unparsed": 1]])
            await store.close()
        }
    }

    /// The generic ingest keeps two chunks in flight on PostgreSQL: with a batch size of 50 (so a chunk is each of
    /// the reader's batches of 1,024 lines) and ids repeated across chunks with other content, the first event of
    /// each id is the one kept, and the counts, completeness and export are the tuned SQLite ingest's. Repeated
    /// lines hold a value the redaction replaces whole, which completeness counts for every line written, repeats
    /// included (a repeat of an id the write before holds is still redacted and counted, though not claimed).
    @Test func overlappedIngestChunksKeepTheFirstEventOfEachIDAsSQLiteDoes() async throws {
        var events = parityEvents(count: 3_000, seed: 31)
        for index in stride(from: 7, to: events.count, by: 7) {
            events[index].id = events[max(0, index - 1 - (index * 13) % 90)].id
            events[index].fields["ref"] = "repeat-\(index)"
            events[index].fields["note"] = #"{"\u0061ccess_token":"Tk9hiddenValue\#(index)", "cut": "#
        }
        let folder = TemporaryDatabase()
        let file = folder.file("events.ndjson")
        try (events.map(NDJSONCodec.line(for:)).joined(separator: "\n") + "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let options = IngestOptions(batchSize: 50)
        let sqlite = try SQLiteEventStore(path: folder.path)
        let expected = try sqlite.ingest([IngestInput(path: file)], options: options, onInvalidLine: { _ in })
        var expectedExport: [UInt8] = []
        try sqlite.export(since: Int64.min, until: Int64.max) { expectedExport += $0 }
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            let summary = try await store.ingestNDJSON(
                [IngestInput(path: file)], options: options, onInvalidLine: { _ in })
            #expect(summary == expected)
            #expect(summary.duplicates >= 3_000 / 7)
            var export: [UInt8] = []
            try await store.export(since: Int64.min, until: Int64.max) { export += $0 }
            #expect(export == expectedExport)
            #expect(!String(decoding: export, as: UTF8.self).contains("repeat-"))
            #expect(try await store.completeness() == (try sqlite.completeness()))
            #expect((try sqlite.completeness())["altered"]?["redacted_unparsed"] == 3_000 / 7)
            await store.close()
        }
    }

    static func writeInBatches(_ events: [MeasurementEvent], to store: PostgresEventStore) async throws -> Int {
        var stored = 0
        for start in stride(from: 0, to: events.count, by: 100) {
            let batch = Array(events[start..<min(start + 100, events.count)])
            stored += try await store.writeBatches([batch]).reduce(0, +)
        }
        return stored
    }

    /// Events go in with `COPY`'s text format: a value holding its delimiters, its escape or its NULL marker must
    /// come back as it was sent, in a column and in `extra`, and an empty value must not become NULL.
    @Test func valuesHoldingCOPYsSpecialBytesComeBackAsTheyWere() async throws {
        let awkward = [
            "tab\there", "line\nbreak", "carriage\rreturn", "back\\slash", "\\N", "\\\\N\t", "", "ünï\u{1F600}",
        ]
        var sent: [MeasurementEvent] = []
        for (index, value) in awkward.enumerated() {
            let fields: [String: String] = [
                FieldName.ref: value, FieldName.targetURL: "https://example.com/\(value)", FieldName.error: value,
                "note": value, FieldName.success: index % 2 == 0 ? value : "1",
            ]
            sent.append(
                MeasurementEvent(
                    id: EventID("id\t\\\(index)\n"), name: EventName.navOut, fields: fields,
                    timestamp: 1_774_137_600_000 + Int64(index)))
        }
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            #expect(try await store.writeBatches([sent]) == [sent.count])
            var read: [MeasurementEvent] = []
            try await store.forEachEvent { read.append($0) }
            #expect(read.count == sent.count)
            for event in sent {
                let back = read.first { $0.id == event.id }
                #expect(back?.fields == event.fields, "\(event.id)")
                #expect(back?.name == event.name)
            }
            await store.close()
        }
    }

    @Test func lossesAndLinksAreKeptAndReadBack() async throws {
        try await PostgresTestDatabase.with { url in
            let store = try await PostgresEventStore.open(url: url)
            try await store.recordLosses([.bufferFull: 2, .tooManyFields: 1])
            try await store.recordLosses([.bufferFull: 3])
            let completeness = try await store.completeness()
            #expect(completeness == ["dropped": ["buffer_full": 5], "rejected": ["too_many_fields": 1]])
            try await store.putLinks([
                StoredLink(slug: "invite", json: "{}"), StoredLink(slug: "a", json: "{\"x\":1}"),
            ])
            try await store.putLinks([StoredLink(slug: "invite", json: "{\"v\":2}")])
            #expect(try await store.links().map(\.slug) == ["a", "invite"])
            #expect(try await store.link(slug: "invite")?.json == "{\"v\":2}")
            #expect(try await store.deleteLink(slug: "a"))
            #expect(try await !store.deleteLink(slug: "a"))
            try await store.recordPublicURL(LinkPublicURL("https://Go.Example.com/")!)
            try await store.recordPublicURL(LinkPublicURL("https://go.example.com")!)
            #expect(try await store.publicURLs() == ["https://go.example.com"])
            await store.close()
        }
    }
}

#endif

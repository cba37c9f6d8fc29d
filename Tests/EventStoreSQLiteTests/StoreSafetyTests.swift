import Foundation
import TestSupport
import Testing

@testable import EventStoreInterface
@testable import EventStoreSQLite

/// Files the store must refuse without changing a byte, and places it cannot write.
struct StoreSafetyTests {
    @Test func aFileThatIsNotSQLiteIsRefusedAndLeftUntouched() throws {
        let database = TemporaryDatabase()
        let text = Data("id,name\n1,al_nav_in\n".utf8) + Data(repeating: 0x41, count: 200)
        #expect(FileManager.default.createFile(atPath: database.path, contents: text))
        let error = #expect(throws: StoreError.self) { try SQLiteEventStore(path: database.path) }
        #expect(error?.kind == .notADatabase)
        #expect(error?.message.contains(database.path) == true)
        #expect(TemporaryDatabase.bytes(database.path) == text)
        #expect(!FileManager.default.fileExists(atPath: database.path + "-wal"))
    }

    @Test func aDamagedDatabaseIsRefusedAndLeftUntouched() throws {
        let database = TemporaryDatabase()
        do {
            let store = try SQLiteEventStore(path: database.path)
            try store.write(sampleEvents(2_000))
        }
        var bytes = TemporaryDatabase.bytes(database.path)
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        #expect(bytes.count > 3 * pageSize)
        // Scribble over the second page (a b-tree page of the schema's tables).
        for offset in pageSize..<2 * pageSize { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 31) }
        try bytes.write(to: URL(fileURLWithPath: database.path))
        let error = #expect(throws: StoreError.self) { try SQLiteEventStore(path: database.path) }
        #expect(error?.kind == .corrupt)
        #expect(error?.message.contains("damaged") == true)
        #expect(TemporaryDatabase.bytes(database.path) == bytes)
    }

    @Test func aLocationThatCannotBeWrittenGivesAClearError() throws {
        let path: String
        let database = TemporaryDatabase()
        if getuid() == 0 {
            path = "/sys/alstats-test.sqlite"  // not creatable even by root
        } else {
            let folder = database.file("locked")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder)
            path = folder + "/alstats.sqlite"
        }
        let error = #expect(throws: StoreError.self) { try SQLiteEventStore(path: path) }
        #expect(error?.kind == .readOnly)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("writable") == true)
    }

    @Test func aMissingDatabaseIsNotCreatedByAReader() throws {
        let database = TemporaryDatabase()
        let error = #expect(throws: StoreError.self) {
            try SQLiteEventStore(path: database.path, options: .init(create: false))
        }
        #expect(error?.kind == .missing)
        // The library names no CLI option; the CLI words the remedy with its own flags.
        #expect(error?.remedy == .existingOrNewDatabase && error?.message.contains("--") == false)
        #expect(!FileManager.default.fileExists(atPath: database.path))
    }
}

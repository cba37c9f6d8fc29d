import Foundation
import Testing

@testable import MeasurementEvents

struct NamedThreadTests {
    /// The name the operating system gives the calling thread (what `top -H` and perf show).
    static func systemName() -> String {
        #if os(Linux)
        let task = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
        let comm = (try? String(contentsOfFile: "/proc/\(task)/comm", encoding: .utf8)) ?? ""
        return comm.trimmingCharacters(in: .newlines)
        #else
        return Thread.current.name ?? ""
        #endif
    }

    /// The system's name of a thread started with `name`.
    static func nameSeen(starting name: String) async -> String {
        await withCheckedContinuation { seen in
            Thread.startNamed(name) { seen.resume(returning: systemName()) }
        }
    }

    @Test func theThreadCarriesItsName() async {
        let seen = await Self.nameSeen(starting: "alstats-writer")
        #expect(seen == "alstats-writer")
    }

    /// Many at once, as under a loaded test run: each thread is named before its body runs.
    @Test func everyThreadOfManyStartedAtOnceCarriesItsName() async {
        let names = await withTaskGroup(of: (String, String).self) { group in
            for index in 0..<64 {
                group.addTask { ("alstats-\(index)", await Self.nameSeen(starting: "alstats-\(index)")) }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names.count == 64)
        for (name, seen) in names { #expect(seen == name) }
    }

    /// Linux refuses a name over 15 bytes whole; it is cut instead, never inside a character.
    @Test func aLongNameIsCutToFifteenBytes() async {
        let seen = await Self.nameSeen(starting: "bus-a-long-subscription")
        #expect(seen == "bus-a-long-subs")
        #expect(Thread.kernelName("bus-fourteen-é!") == "bus-fourteen-é")
        #expect(Thread.kernelName("bus-fifteen-by-é") == "bus-fifteen-by-")
    }
}

import Foundation
import MeasurementEvents
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Counts the tests skipped for want of something the machine lacks (a PostgreSQL server), and says at the very end
/// of the run how many and the one command that runs them: Swift Testing's own summary counts them among the passed.
///
/// Call ``skip(_:runWith:)`` where a test's enabled-condition finds that the test cannot run:
///
/// ```swift
/// static var shouldRun: Bool {
///     if serverURL != nil { return true }
///     SkippedTests.skip("PostgreSQL", runWith: "bash .ci/postgres swift test")
///     return false
/// }
/// // at exit, after the run's summary:
/// // ◇ 38 tests needing PostgreSQL were skipped; run them with: bash .ci/postgres swift test
/// ```
public enum SkippedTests {
    /// One need's skips: the command that runs its tests, and the tests skipped.
    private struct Skips {
        var need: String
        var command: String
        var tests: Set<String> = []
        var unnamed = 0
    }

    /// The skips so far, by need, in the order first met.
    private static let skips = StateLock<[Skips]>([])

    /// Notes that the test being planned is skipped for want of `need`, which `command` provides. A suite's
    /// condition is evaluated for the suite and again for each of its tests: only tests are counted, each once. The
    /// first note of the process registers the line printed at its exit.
    public static func skip(_ need: String, runWith command: String) {
        let test = Test.current
        guard test?.isSuite != true else { return }
        let first = skips.withLock { skips in
            let first = skips.isEmpty
            var index = skips.firstIndex { $0.need == need }
            if index == nil {
                skips.append(Skips(need: need, command: command))
                index = skips.count - 1
            }
            if let test { skips[index!].tests.insert("\(test.id)") } else { skips[index!].unnamed += 1 }
            return first
        }
        if first { atexit { SkippedTests.printSummary() } }
    }

    /// The lines printed at exit, one per need: `◇ 38 tests needing PostgreSQL were skipped; run them with: ...`.
    public static var summary: [String] {
        skips.withLock { skips in
            skips.map {
                let count = $0.tests.count + $0.unnamed
                let verb = count == 1 ? "was" : "were"
                return "◇ \(String(counting: count, "test")) needing \($0.need) \(verb) skipped; run them with: "
                    + $0.command
            }
        }
    }

    private static func printSummary() {
        let text = summary.map { $0 + "\n" }.joined()
        FileHandle.standardError.write(Data(text.utf8))
    }
}

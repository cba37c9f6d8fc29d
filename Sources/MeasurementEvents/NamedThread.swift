import Foundation

extension Thread {
    /// Starts `body` on a new thread named `name` as `top -H`, `ps -L`, gdb and perf show it.
    ///
    /// The name is set from inside the thread: on Linux, Foundation applies a name set before `start()` to
    /// nothing, and the kernel keeps at most 15 bytes of a thread's name (a longer one is refused whole), so
    /// the name is cut to ``kernelName(_:)`` first.
    ///
    /// ```swift
    /// Thread.startNamed("alstats-writer") { loop() }   // top -H shows "alstats-writer"
    /// ```
    package static func startNamed(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let name = kernelName(name)
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            // On Linux, `Thread.current.name` names the thread only once `start()` has stored its handle, which
            // a new thread can run ahead of (under a loaded test run it kept the process's name): wait for it.
            started.wait()
            Thread.current.name = name
            body()
        }
        thread.start()
        started.signal()
    }

    /// `name` cut to the 15 bytes a Linux thread name holds, at a character boundary.
    package static func kernelName(_ name: String) -> String {
        var cut = ""
        for character in name {
            guard cut.utf8.count + character.utf8.count <= 15 else { break }
            cut.append(character)
        }
        return cut
    }
}

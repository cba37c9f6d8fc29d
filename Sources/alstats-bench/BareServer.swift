#if Server
import Dispatch
import Hummingbird
import Logging
import MeasurementEvents

/// A bare Hummingbird application in the bench process, for the links benchmark's calibration: `GET /l/{slug}`
/// answers fixed bytes (the same page `alstats serve` answers) and `GET /healthz` answers `ok`, with no
/// middleware, no link and no hit. What the load client reaches against it is the most this machine gives
/// with this client; "ours / bare" is then alstats' own cost.
final class BareServer: Sendable {
    /// The loopback port it listens on.
    let port: Int
    private let task: Task<Void, Never>
    private let stopped: DispatchSemaphore

    private init(port: Int, task: Task<Void, Never>, stopped: DispatchSemaphore) {
        self.port = port
        self.task = task
        self.stopped = stopped
    }

    /// Starts a server answering `page` for every `/l/{slug}` and waits until it listens; ``stop()`` stops it.
    static func start(page: [UInt8]) throws -> BareServer {
        let router = Router()
        let body = ByteBuffer(bytes: page)
        router.get("l/:slug") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
                    .contentLength: String(body.readableBytes),
                ],
                body: ResponseBody(byteBuffer: body))
        }
        router.get("healthz") { _, _ in "ok\n" }
        let bound = StateLock<Int?>(nil)
        let listening = DispatchSemaphore(value: 0)
        var logger = Logger(label: "alstats-bench.bare")
        logger.logLevel = .warning
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                bound.withLock { $0 = channel.localAddress?.port }
                listening.signal()
            }, logger: logger)
        let stopped = DispatchSemaphore(value: 0)
        let task = Task {
            do { try await app.run() } catch { logger.warning("the bare server stopped: \(error)") }
            listening.signal()
            stopped.signal()
        }
        listening.wait()
        guard let port = bound.withLock({ $0 }) else {
            task.cancel()
            throw BenchFailure("the bare Hummingbird server did not start")
        }
        return BareServer(port: port, task: task, stopped: stopped)
    }

    /// Stops the server and waits until it has.
    func stop() {
        task.cancel()
        stopped.wait()
    }
}
#endif

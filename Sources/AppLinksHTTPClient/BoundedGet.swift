import AppLinks
import AppLinksCheck
import AsyncHTTPClient
import Foundation
import MeasurementEvents
import NIOCore
import NIOHTTP1

/// One GET within the App Link resolver's limits, shared by ``AsyncHTTPClientAppLinkResolver`` (a page's tags) and
/// ``AsyncHTTPClientLinkCheckFetcher`` (`alstats check`): redirects followed up to `maximumRedirects`, to http and
/// https only (or not at all); the whole of it, redirects and body included, within `timeout`; at most
/// `maximumBytes` of body, the transfer dropped as soon as it grows past that. The body of an answer other than 2xx
/// is not read.
struct BoundedGet: Sendable {
    let client: HTTPClient
    let maximumRedirects: Int
    let maximumBytes: Int
    let timeout: Duration

    /// The answer to `url`: the last one when redirects are followed.
    /// - Throws: ``AppLinkError``: `unsupportedScheme`, `tooManyRedirects`, `timedOut`, `tooLarge`, `network`.
    func run(
        _ url: URL, headers: [(String, String)], followRedirects: Bool
    ) async throws(AppLinkError) -> LinkCheckResponse {
        try AppLinkError.requireWebScheme(url)
        let get = self
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        // The client's deadline covers each request up to its answer's head; the race covers the bodies too.
        let outcome = await withTaskGroup(of: Result<LinkCheckResponse, AppLinkError>?.self) { group in
            group.addTask {
                await get.follow(url, headers: headers, followRedirects: followRedirects, deadline: deadline)
            }
            group.addTask {
                try? await Task.sleep(for: get.timeout)
                return Task.isCancelled ? nil : .failure(.timedOut(seconds: get.timeout.inSeconds))
            }
            defer { group.cancelAll() }
            while let result = await group.next() {
                if let result { return result }
            }
            return Result<LinkCheckResponse, AppLinkError>.failure(.network("the fetch was cancelled"))
        }
        return try outcome.get()
    }

    private func follow(
        _ url: URL, headers: [(String, String)], followRedirects: Bool, deadline: NIODeadline
    ) async -> Result<LinkCheckResponse, AppLinkError> {
        var current = url
        var redirects = 0
        while true {
            var request = HTTPClientRequest(url: current.absoluteString)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, deadline: deadline)
            } catch {
                return .failure(map(error))
            }
            if followRedirects, let next = Self.redirectTarget(of: response, from: current) {
                redirects += 1
                guard redirects <= maximumRedirects else { return .failure(.tooManyRedirects(limit: maximumRedirects)) }
                do {
                    // A redirect must not turn a page fetch into a file:// (or other) read.
                    try AppLinkError.requireWebScheme(next)
                } catch {
                    return .failure(error)
                }
                // The redirect's own body is dropped unread: AsyncHTTPClient closes its connection.
                current = next
                continue
            }
            return await read(response, from: current)
        }
    }

    /// The answer with its body, read up to the limit when it is 2xx.
    private func read(_ response: HTTPClientResponse, from url: URL) async -> Result<LinkCheckResponse, AppLinkError> {
        var headers: [String: String] = [:]
        for header in response.headers where headers[header.name.lowercased()] == nil {
            headers[header.name.lowercased()] = header.value
        }
        let status = Int(response.status.code)
        var answer = LinkCheckResponse(url: url, status: status, headers: headers, body: [])
        guard (200..<300).contains(status) else { return .success(answer) }
        if let length = headers["content-length"].flatMap(Int.init), length > maximumBytes {
            return .failure(.tooLarge(limit: maximumBytes))
        }
        do {
            for try await chunk in response.body {
                guard answer.body.count + chunk.readableBytes <= maximumBytes else {
                    // Leaving the loop drops the rest of the transfer.
                    return .failure(.tooLarge(limit: maximumBytes))
                }
                answer.body.append(contentsOf: chunk.readableBytesView)
            }
        } catch {
            return .failure(map(error))
        }
        return .success(answer)
    }

    /// Where a 301, 302, 303, 307 or 308 answer with a `Location` sends the fetch; `nil` for any other answer.
    private static func redirectTarget(of response: HTTPClientResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status.code),
            let location = response.headers.first(name: "Location"),
            let target = URL(string: location, relativeTo: url)
        else { return nil }
        return target.absoluteURL
    }

    private func map(_ error: any Error) -> AppLinkError {
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
            return .timedOut(seconds: timeout.inSeconds)
        }
        return .network(String(describing: error))
    }
}

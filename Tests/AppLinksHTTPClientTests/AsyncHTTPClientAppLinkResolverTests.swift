#if Server

import AppLinks
import AppLinksHTTPClient
import TestSupport
import Testing

/// AsyncHTTPClient's resolver (`alstats resolve` and `navigate` on Linux) held to the contract of every HTTP App Link
/// resolver.
///
/// The time limit only turns a hang into a failure: under TSan on 2 cores a resumed async test waited more than a
/// minute for a thread of the pool.
@Suite(.timeLimit(.minutes(10)))
struct AsyncHTTPClientAppLinkResolverTests {
    let contract = AppLinkResolverContract { timeout, redirects, bytes in
        AsyncHTTPClientAppLinkResolver(timeout: timeout, maximumRedirects: redirects, maximumBytes: bytes)
    }

    @Test(arguments: AppLinkResolverContract.Check.allCases)
    func holdsTheContract(_ check: AppLinkResolverContract.Check) async throws {
        try await contract.run(check)
    }

    @Test(arguments: AppLinkResolverContract.failures)
    func failsWithATypedError(failure: (path: String, code: String)) async throws {
        try await contract.failsWithATypedError(failure)
    }
}

#endif

import AppLinks
import ArgumentParser
import Foundation
import MeasurementEvents

#if Server && !ALSTATS_URLSESSION
import AppLinksHTTPClient
#endif

/// Where `resolve` and `navigate` get a page: `URL` (fetched over HTTP(S)), or `--html FILE --url PAGE_URL`.
struct PageSourceOptions: ParsableArguments {
    @Argument(help: "The page URL to fetch (http or https).")
    var pageURL: String?

    @Option(
        name: .customLong("html"), help: ArgumentHelp("Read the page from this HTML file instead.", valueName: "file"))
    var htmlFile: String?

    @Option(name: .customLong("url"), help: ArgumentHelp("The URL of the page in --html.", valueName: "page-url"))
    var htmlPageURL: String?

    @Option(help: "The device kind targets are chosen for: iphone, ipad or android.")
    var platform: AppLinkPlatform = .iphone

    @Option(help: ArgumentHelp("Fetch time limit in seconds.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        switch (pageURL, htmlFile, htmlPageURL) {
        case (.some, nil, nil), (nil, .some, .some): break
        case (.some, _, _): throw ValidationError("Give either a page URL or --html FILE --url PAGE_URL, not both.")
        case (nil, .some, nil): throw ValidationError("--html needs --url PAGE_URL: the URL the page was served at.")
        case (nil, nil, .some): throw ValidationError("--url needs --html FILE (or give the URL as the argument).")
        case (nil, nil, nil): throw ValidationError("Give a page URL, or --html FILE --url PAGE_URL.")
        }
        let url = pageURL ?? htmlPageURL ?? ""
        guard RawURL(url).isAbsolute, URL(string: url) != nil else {
            throw ValidationError("'\(url)' is not an absolute URL; give one such as https://example.com/article.")
        }
        guard timeout > 0, timeout <= 600 else {
            throw ValidationError("--timeout must be more than 0 and at most 600 seconds, not \(timeout).")
        }
    }

    /// The page URL (validated).
    var sourceURL: URL { URL(string: pageURL ?? htmlPageURL ?? "")! }

    /// The resolver for the page: the HTML file's, or HTTP, identifying itself as `alstats-COMMAND/VERSION` (a
    /// hosted link counts that as a tool's fetch, not a person's visit).
    /// - Throws: ``CLIFailure`` 66 for a missing file, 74 for an unreadable one.
    func resolver(command: String) throws -> any AppLinkResolving {
        guard let htmlFile else {
            let agent = "alstats-\(command)/\(ALStatsVersion.current)"
            let limit = Duration.milliseconds(Int64(timeout * 1000))
            // URLSession on Apple platforms (and in the core-only build); AsyncHTTPClient on Linux.
            #if ALSTATS_URLSESSION || !Server
            return HTTPAppLinkResolver(platform: platform, timeout: limit, userAgent: agent)
            #else
            return AsyncHTTPClientAppLinkResolver(platform: platform, timeout: limit, userAgent: agent)
            #endif
        }
        guard FileManager.default.fileExists(atPath: htmlFile) else {
            throw CLIFailure(ExitStatus.noInput, "\(htmlFile): no such file; give the path of a saved HTML page")
        }
        guard let data = FileManager.default.contents(atPath: htmlFile) else {
            throw CLIFailure(ExitStatus.ioError, "\(htmlFile): cannot be read; check its permissions")
        }
        return HTMLAppLinkResolver(html: String(decoding: data, as: UTF8.self), platform: platform)
    }

    /// Resolves the page for `command` (`resolve`, `navigate`: its User-Agent).
    /// - Throws: ``CLIFailure`` when the HTML file is missing or unreadable; a failed resolution is the result.
    func resolve(command: String) async throws -> Result<AppLink, AppLinkError> {
        let resolver = try resolver(command: command)
        do throws(AppLinkError) {
            return .success(try await resolver.appLink(for: sourceURL))
        } catch {
            return .failure(error)
        }
    }

    /// Resolves the page for `command`; a failure becomes exit status 74 with the resolver's message.
    func resolvedLink(command: String) async throws -> AppLink {
        switch try await resolve(command: command) {
        case .success(let link): return link
        case .failure(let error): throw failure(error)
        }
    }

    /// A resolution failure as the CLI reports it (exit status 74): the page, the resolver's message and, for a
    /// page that cannot be fetched, the option that reads it from a file instead.
    func failure(_ error: AppLinkError) -> CLIFailure {
        let hint = if case .unsupportedScheme = error { " (or use --html FILE)" } else { "" }
        return CLIFailure(ExitStatus.ioError, "\(sourceURL.absoluteString): \(error)\(hint)")
    }
}

extension AppLinkPlatform: ExpressibleByArgument {}

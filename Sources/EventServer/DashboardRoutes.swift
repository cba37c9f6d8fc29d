import EventReport
import EventStoreInterface
import Hummingbird
import MeasurementEvents

/// The dashboard (read role, docs/dashboard.md): `GET /report`, the report's figures for the view its URL
/// says (``DashboardView``: period, time zone, filters, comparison), `GET /report?...&part=main` (its
/// figures alone, which the page's script swaps in while the period includes now), and
/// `GET /report/links/{slug}` (one hosted link: its funnel and its days).
///
/// Every parameter is read as `/api/report` reads it (``ReportParameters``): one it cannot read is answered with
/// its status and message, on a page of the dashboard (``DashboardPage/errorPage(status:reason:message:)``); so is a
/// link page of a slug that is neither stored nor ever hit (404).
struct DashboardRoutes {
    typealias Context = ServerRequestContext

    let reports: ReportRoutes
    /// The stored links, to tell a link's page from a page of no link.
    let links: LinkCatalog

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("report") { request, _ in
            await DashboardRoutes.answering { () async throws(EventServerError) in
                let form = FormParameters.decode(request.uri.query)
                let parameters = DashboardRoutes.dictionary(form)
                let now = reports.clock.nowMilliseconds()
                let view = DashboardRoutes.comparable(DashboardView(parameters: parameters), request: form, now: now)
                let read = try DashboardRoutes.parameters(form, view: view, now: now)
                let report = try await reports.read(read.query, comparison: read.comparison)
                let page = DashboardPage(view: view)
                return parameters["part"] == "main"
                    ? page.renderMain(report) : page.render(report, scriptNonce: DashboardRoutes.nonce())
            }
        }
        group.get("report/links/:slug") { request, context in
            await DashboardRoutes.answering { () async throws(EventServerError) in
                guard let slug = context.parameters.get("slug") else {
                    throw EventServerError(.notFound, "a link page needs a slug: /report/links/{slug}")
                }
                return try await linkPage(slug: slug, query: request.uri.query)
            }
        }
    }

    /// The page (or its `<main>`) of the hosted link `slug` for the view of `query`.
    /// - Throws: ``EventServerError``: 400 for a parameter that cannot be read, 404 for a slug that no link has and
    ///   that no hit or arrival ever named.
    private func linkPage(slug: String, query: String?) async throws(EventServerError) -> String {
        let form = FormParameters.decode(query)
        let parameters = DashboardRoutes.dictionary(form)
        // The path names the link; the view (picker, chips) is the rest of the URL.
        let now = reports.clock.nowMilliseconds()
        let view = DashboardRoutes.comparable(
            DashboardView(parameters: parameters).removing(.link), request: form, now: now)
        let read = try DashboardRoutes.parameters(form, view: view.adding(.link, slug), now: now)
        let report = try await reports.read(read.query, comparison: read.comparison)
        if try await links.link(slug).link == nil, !report.links.contains(where: { $0.slug == slug }) {
            let ever = try await reports.read(ReportQuery(link: slug))
            guard ever.links.contains(where: { $0.slug == slug }) else {
                throw EventServerError(
                    .notFound, "no hosted link is named '\(slug)', and no page of that name was ever asked for")
            }
        }
        let days = try await reports.linkDays(slug: slug, query: read.query)
        let page = DashboardPage(view: view)
        return parameters["part"] == "main"
            ? page.renderLinkMain(slug: slug, report: report, days: days)
            : page.renderLink(slug: slug, report: report, days: days, scriptNonce: DashboardRoutes.nonce())
    }

    /// The HTML `body` makes, or the dashboard's error page with the status and message of the error it threw.
    static func answering(_ body: () async throws(EventServerError) -> String) async -> Response {
        do {
            return Response.text(try await body(), contentType: "text/html; charset=utf-8")
        } catch {
            let page = DashboardPage.errorPage(
                status: Int(error.status.code), reason: error.status.reasonPhrase, message: error.message)
            var response = Response.text(page, contentType: "text/html; charset=utf-8")
            response.status = error.status
            for field in error.headers { response.headers.append(field) }
            return response
        }
    }

    /// The report parameters of a dashboard request: every parameter of the request read as `/api/report` reads
    /// it, then those of `/api/report` for the view (``DashboardView/apiParameters``, so that the page shows what
    /// its script polls), with the request's `top`.
    /// - Throws: ``EventServerError`` (400) naming a parameter that is not valid, with `/api/report`'s message.
    static func parameters(
        _ request: Parameters, view: DashboardView, now: Int64
    ) throws(EventServerError) -> ReportParameters {
        _ = try ReportParameters(request, now: now)
        var items = apiItems(of: view)
        if let top = request.get("top") { items.append(("top", Substring(top))) }
        return try ReportParameters(Parameters(items), now: now)
    }

    /// ``DashboardView/apiParameters`` as the items of a query.
    private static func apiItems(of view: DashboardView) -> [(Substring, Substring)] {
        view.apiParameters.map { (Substring($0.name), Substring($0.value)) }
    }

    /// `view` without its comparison when the request did not ask for one and its window cannot have one (an empty
    /// window, a start after now, a window whose previous one would start before the year 0001): the dashboard
    /// compares by default, and the report without a comparison beats refusing the page. A view whose window is
    /// wrong either way stays as it is, so that the error names what is wrong.
    static func comparable(_ view: DashboardView, request: Parameters, now: Int64) -> DashboardView {
        guard view.compare, request.get("compare") == nil else { return view }
        func readable(_ view: DashboardView) -> Bool {
            (try? ReportParameters(Parameters(apiItems(of: view)), now: now)) != nil
        }
        guard !readable(view) else { return view }
        var plain = view
        plain.compare = false
        return readable(plain) ? plain : view
    }

    /// The last value of each query parameter.
    static func dictionary(_ parameters: Parameters) -> [String: String] {
        var dictionary: [String: String] = [:]
        for (name, value) in parameters { dictionary[String(name)] = String(value) }
        return dictionary
    }

    /// A fresh Content-Security-Policy nonce: 16 random bytes in hex.
    static func nonce() -> String {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<16 {
            let byte = UInt8.random(in: 0...255, using: &generator)
            bytes += [HexDigits.lower[Int(byte >> 4)], HexDigits.lower[Int(byte & 0x0F)]]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

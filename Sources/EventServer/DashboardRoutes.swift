import EventReport
import EventStoreInterface
import Hummingbird
import MeasurementEvents

/// The dashboard (read role, docs/dashboard.md): `GET /report`, the report's figures for the view its URL
/// says (``DashboardView``: period, time zone, filters, comparison), `GET /report?...&part=main` (its
/// figures alone, which the page's script swaps in while the period includes now), and
/// `GET /report/links/{slug}` (one hosted link: its funnel and its days).
struct DashboardRoutes {
    typealias Context = ServerRequestContext

    let reports: ReportRoutes

    func addRoutes(to group: RouterGroup<Context>) {
        group.get("report") { request, _ in
            let form = FormParameters.decode(request.uri.query)
            let parameters = DashboardRoutes.dictionary(form)
            let view = DashboardView(parameters: parameters)
            let read = try DashboardRoutes.parameters(form, view: view, now: reports.clock.nowMilliseconds())
            let report = try await reports.read(read.query, comparison: read.comparison)
            let page = DashboardPage(view: view)
            let html =
                parameters["part"] == "main"
                ? page.renderMain(report) : page.render(report, scriptNonce: DashboardRoutes.nonce())
            return Response.text(html, contentType: "text/html; charset=utf-8")
        }
        group.get("report/links/:slug") { request, context in
            guard let slug = context.parameters.get("slug") else {
                throw EventServerError(.notFound, "a link page needs a slug: /report/links/{slug}")
            }
            let form = FormParameters.decode(request.uri.query)
            let parameters = DashboardRoutes.dictionary(form)
            // The path names the link; the view (picker, chips) is the rest of the URL.
            let view = DashboardView(parameters: parameters).removing(.link)
            let read = try DashboardRoutes.parameters(
                form, view: view.adding(.link, slug), now: reports.clock.nowMilliseconds())
            let report = try await reports.read(read.query, comparison: read.comparison)
            let days = try await reports.linkDays(slug: slug, query: read.query)
            let page = DashboardPage(view: view)
            let html =
                parameters["part"] == "main"
                ? page.renderLinkMain(slug: slug, report: report, days: days)
                : page.renderLink(slug: slug, report: report, days: days, scriptNonce: DashboardRoutes.nonce())
            return Response.text(html, contentType: "text/html; charset=utf-8")
        }
    }

    /// The report parameters of a dashboard request: those of `/api/report` for the view (``DashboardView/
    /// apiParameters``, so that the page shows what its script polls), with the request's `top`.
    /// - Throws: ``EventServerError`` (400) naming a parameter that is not valid.
    static func parameters(
        _ request: Parameters, view: DashboardView, now: Int64
    ) throws(EventServerError) -> ReportParameters {
        if let value = request.get("period"), DashboardView.Period(rawValue: value) == nil {
            throw EventServerError(.badRequest, "period must be today, 7d, 30d, all or custom, not '\(value)'")
        }
        var items = view.apiParameters.map { (Substring($0.name), Substring($0.value)) }
        if let top = request.get("top") { items.append(("top", Substring(top))) }
        return try ReportParameters(Parameters(items), now: now)
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

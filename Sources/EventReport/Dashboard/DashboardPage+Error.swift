extension DashboardPage {
    /// The page of a dashboard request that cannot be answered (a parameter that cannot be read, a link that does
    /// not exist): its status and the message `/api/report` gives for the same parameters, with a way back to the
    /// dashboard. Self-contained like the dashboard, without a script.
    ///
    /// ```swift
    /// DashboardPage.errorPage(status: 400, reason: "Bad Request", message: "compare must be 'previous' or 'none'")
    /// ```
    public static func errorPage(status: Int, reason: String, message: String) -> String {
        let title = "\(status) \(reason)"
        return HTMLRenderer.page(
            title: "alstats dashboard: \(title)",
            body: [
                "<header class=\"dashboard\">", "<h1><a href=\"/report\">alstats dashboard</a></h1>", "</header>",
                "<main id=\"error\">", "<h2>\(title.htmlEscaped)</h2>",
                "<p id=\"error-message\">\(message.htmlEscaped)</p>",
                "<p><a href=\"/report\">The dashboard of the last 7 days</a></p>", "</main>",
            ])
    }
}

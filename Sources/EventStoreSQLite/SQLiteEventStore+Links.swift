import EventStoreInterface
import SQLiteSupport

extension SQLiteEventStore: LinkStore {
    /// Stores `links`, replacing any with the same slug, all or none in one transaction.
    ///
    /// ```swift
    /// try store.putLinks([StoredLink(slug: "invite", json: #"{"slug":"invite","web":{"url":"https://a.example"}}"#)])
    /// ```
    public func putLinks(_ links: [StoredLink]) throws(StoreError) {
        let now = clock.nowMilliseconds()
        try inLinkTransaction(doing: "storing links") { connection throws(SQLiteError) in
            let statement = try connection.prepare(
                "INSERT OR REPLACE INTO links (slug, json, updated_ms) VALUES (?1, ?2, ?3)")
            for link in links {
                statement.bind(1, link.slug)
                statement.bind(2, link.json)
                statement.bind(3, now)
                try statement.run()
            }
        }
    }

    /// Every stored link, by slug.
    public func links() throws(StoreError) -> [StoredLink] {
        try readLinks("SELECT slug, json, updated_ms FROM links ORDER BY slug", slug: nil)
    }

    /// The link named `slug`, or `nil`.
    public func link(slug: String) throws(StoreError) -> StoredLink? {
        try readLinks("SELECT slug, json, updated_ms FROM links WHERE slug = ?1", slug: slug).first
    }

    /// Deletes the link named `slug`; `false` when there was none.
    @discardableResult
    public func deleteLink(slug: String) throws(StoreError) -> Bool {
        try inLinkTransaction(doing: "deleting a link") { connection throws(SQLiteError) in
            let statement = try connection.prepare("DELETE FROM links WHERE slug = ?1")
            statement.bind(1, slug)
            try statement.run()
            return try connection.scalarInt("SELECT changes()") > 0
        }
    }

    /// Records `url` as a public URL of the hosted links (kept once), so that the report counts the
    /// `al_nav_in` events whose `targetURL` is a link's canonical URL on it as arrivals.
    ///
    /// ```swift
    /// try store.recordPublicURL(LinkPublicURL("https://go.example.com")!)
    /// ```
    public func recordPublicURL(_ url: LinkPublicURL) throws(StoreError) {
        let now = clock.nowMilliseconds()
        try inLinkTransaction(doing: "recording the public URL") { connection throws(SQLiteError) in
            let statement = try connection.prepare(
                "INSERT INTO link_public_url (public_url, recorded_ms) VALUES (?1, ?2) ON CONFLICT DO NOTHING")
            statement.bind(1, url.text)
            statement.bind(2, now)
            try statement.run()
        }
    }

    /// The recorded public URLs of the hosted links, sorted.
    public func publicURLs() throws(StoreError) -> [String] {
        try withStore { store throws(SQLiteError) in
            let statement = try store.connection.prepare("SELECT public_url FROM link_public_url ORDER BY 1")
            defer { statement.reset() }
            var urls: [String] = []
            while try statement.step() { urls.append(statement.text(0) ?? "") }
            return urls
        }
    }

    private func readLinks(_ sql: String, slug: String?) throws(StoreError) -> [StoredLink] {
        try withStore { store throws(SQLiteError) in
            let statement = try store.connection.prepare(sql)
            if let slug { statement.bind(1, slug) }
            defer { statement.reset() }
            var links: [StoredLink] = []
            while try statement.step() {
                links.append(
                    StoredLink(
                        slug: statement.text(0) ?? "", json: statement.text(1) ?? "",
                        updatedMilliseconds: statement.int64(2)))
            }
            return links
        }
    }

    /// Runs `body` in a transaction of its own, after committing any batch of events the writer holds.
    private func inLinkTransaction<Result>(
        doing what: String, _ body: (SQLiteConnection) throws(SQLiteError) -> Result
    ) throws(StoreError) -> Result {
        try withStore { store throws(SQLiteError) in
            if store.writer.inTransaction { try store.writer.commit() }
            try store.connection.execute("BEGIN IMMEDIATE", doing: what)
            do throws(SQLiteError) {
                let result = try body(store.connection)
                try store.connection.execute("COMMIT", doing: what)
                return result
            } catch {
                try? store.connection.execute("ROLLBACK")
                throw error
            }
        }
    }
}

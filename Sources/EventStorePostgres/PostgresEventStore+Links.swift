import EventStoreInterface
import PostgresNIO

extension PostgresEventStore: LinkStore {
    /// Stores `links`, replacing any with the same slug, all or none in one transaction.
    ///
    /// ```swift
    /// try await store.putLinks([StoredLink(slug: "invite", json: #"{"slug":"invite","web":{"url":"https://a.example"}}"#)])
    /// ```
    /// - Throws: ``StoreError`` when the transaction could not be committed; then no link changed.
    public func putLinks(_ links: [StoredLink]) async throws(StoreError) {
        guard !links.isEmpty else { return }
        let now = clock.nowMilliseconds()
        var latest: [String: StoredLink] = [:]
        for link in links { latest[link.slug] = link }
        let sorted = latest.values.sorted { $0.slug.utf8.lexicographicallyPrecedes($1.slug.utf8) }
        try await inTransaction(doing: "storing links") { connection in
            var binds = PostgresBindings()
            binds.append(sorted.map(\.slug))
            binds.append(sorted.map(\.json))
            binds.append(now)
            try await self.run(
                """
                INSERT INTO links AS t (slug, json, updated_ms)
                SELECT slug, json, $3::bigint FROM unnest($1::text[], $2::text[]) AS u (slug, json)
                ON CONFLICT (slug) DO UPDATE SET json = excluded.json, updated_ms = excluded.updated_ms
                """, binds, on: connection)
        }
    }

    /// Every stored link, by slug.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func links() async throws(StoreError) -> [StoredLink] {
        try await readLinks("SELECT slug, json, updated_ms FROM links ORDER BY slug", slug: nil)
    }

    /// The link named `slug`, or `nil`.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func link(slug: String) async throws(StoreError) -> StoredLink? {
        try await readLinks("SELECT slug, json, updated_ms FROM links WHERE slug = $1", slug: slug).first
    }

    /// Deletes the link named `slug`; `false` when there was none.
    /// - Throws: ``StoreError`` when the transaction could not be committed.
    @discardableResult
    public func deleteLink(slug: String) async throws(StoreError) -> Bool {
        try await withConnection(doing: "deleting a link") { connection in
            var binds = PostgresBindings()
            binds.append(slug)
            return try await !self.rows("DELETE FROM links WHERE slug = $1 RETURNING slug", binds, on: connection) {
                try $0[0].decode(String.self)
            }.isEmpty
        }
    }

    /// Records `url` as a public URL of the hosted links (kept once), so that the report counts the `al_nav_in`
    /// events whose `targetURL` is a link's canonical URL on it as arrivals.
    /// - Throws: ``StoreError`` when the transaction could not be committed.
    public func recordPublicURL(_ url: LinkPublicURL) async throws(StoreError) {
        let now = clock.nowMilliseconds()
        try await withConnection(doing: "recording the public URL") { connection in
            var binds = PostgresBindings()
            binds.append(url.text)
            binds.append(now)
            try await self.run(
                "INSERT INTO link_public_url (public_url, recorded_ms) VALUES ($1, $2) ON CONFLICT DO NOTHING", binds,
                on: connection)
        }
    }

    /// The recorded public URLs of the hosted links, sorted.
    /// - Throws: ``StoreError`` when the database cannot be read.
    public func publicURLs() async throws(StoreError) -> [String] {
        try await withConnection(doing: "reading the public URLs") { connection in
            try await self.rows("SELECT public_url FROM link_public_url ORDER BY 1", on: connection) {
                try $0[0].decode(String.self)
            }
        }
    }

    private func readLinks(_ sql: String, slug: String?) async throws(StoreError) -> [StoredLink] {
        try await withConnection(doing: "reading links") { connection in
            var binds = PostgresBindings()
            if let slug { binds.append(slug) }
            return try await self.rows(sql, binds, on: connection) { row in
                StoredLink(
                    slug: try row[0].decode(String.self), json: try row[1].decode(String.self),
                    updatedMilliseconds: try row[2].decode(Int64.self))
            }
        }
    }
}

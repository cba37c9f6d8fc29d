import EmbeddedSQLFiles
import MeasurementEvents

/// The bundled `Queries/*.sql`, carried in the binary: list them, run one with parameters.
///
/// ```swift
/// let result = try QueryCatalog.run(QueryCatalog.query(named: "failure_reasons")!, parameters: [:], on: store)
/// print(result.render(.csv))
/// ```
public enum QueryCatalog {
    /// One bundled query.
    public struct Query: Sendable, Hashable {
        /// The file name without `.sql` (and without a dialect suffix).
        public var name: String
        /// The first line of its header comment, after `name:`.
        public var summary: String
        /// The SQL, exactly as in the file (the dialect's variant file when it has one).
        public var text: String

        /// A query as its file gives it.
        package init(name: String, summary: String, text: String) {
            self.name = name
            self.summary = summary
            self.text = text
        }
    }

    /// The SQL dialect a query is run in: the backend's. `Queries/NAME.sql` is portable (run as it is in
    /// `sqlite3`); `Queries/postgres/NAME.sql`, when present, is what PostgreSQL runs instead.
    public enum Dialect: String, Sendable, Hashable, CaseIterable {
        /// SQLite: the portable files.
        case sqlite
        /// PostgreSQL: `postgres/NAME.sql` where there is one, else the portable `NAME.sql`.
        case postgres
    }

    /// The parameters that are numbers (times in milliseconds, a row count): a whole number given for one of these
    /// binds as an integer. Every other parameter (`ref`, `referer_app`, `source_host`, `link`, `slug`) is text and
    /// binds as text whatever it holds, so that `ref=007` finds the ref `007` in SQLite as in PostgreSQL.
    public static let integerParameters: Set<String> = ["since", "until", "now", "limit"]

    /// Every bundled query for SQLite, by name.
    public static var all: [Query] { all(dialect: .sqlite) }

    /// Every bundled query, by name, each in the text `dialect` runs.
    public static func all(dialect: Dialect) -> [Query] {
        switch dialect {
        case .sqlite: queries(in: BundledQueries.files, variants: [])
        case .postgres: queries(in: BundledQueries.files, variants: BundledQueries.postgresFiles)
        }
    }

    /// The query called `name` for SQLite, or `nil`.
    public static func query(named name: String) -> Query? {
        query(named: name, dialect: .sqlite)
    }

    /// The query called `name` in the text `dialect` runs (its variant file, else the portable one), or `nil`.
    ///
    /// ```swift
    /// let query = QueryCatalog.query(named: "daily_funnel", dialect: source.dialect)
    /// ```
    public static func query(named name: String, dialect: Dialect) -> Query? {
        all(dialect: dialect).first { $0.name == name }
    }

    /// The queries of the portable `files`: one per file `NAME.sql` (its name and one-line summary), its text from
    /// the file of the same name among `variants` when there is one. A variant without a portable file is not listed.
    package static func queries(in files: [EmbeddedSQLFile], variants: [EmbeddedSQLFile]) -> [Query] {
        let texts = Dictionary(variants.map { ($0.stem, $0.text) }, uniquingKeysWith: { first, _ in first })
        return files.map { file in
            Query(name: file.stem, summary: summary(of: file), text: texts[file.stem] ?? file.text)
        }.sorted { $0.name < $1.name }
    }

    /// The first line of the header comment of `file`, after `name:`.
    private static func summary(of file: EmbeddedSQLFile) -> String {
        let firstLine = file.text.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
        var summary = firstLine.hasPrefix("--") ? String(firstLine.dropFirst(2)) : ""
        if let colon = summary.firstIndex(of: ":"), summary[..<colon].trimmingCharacters(in: .whitespaces) == file.stem
        {
            summary = String(summary[summary.index(after: colon)...])
        }
        return summary.trimmingCharacters(in: .whitespaces)
    }
}

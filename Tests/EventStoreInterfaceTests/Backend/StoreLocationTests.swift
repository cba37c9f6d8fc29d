import EventStoreInterface
import Testing

/// The password of the URLs below: it must never appear in a message or a description.
private let password = "Hunter2-s3cr3t"

struct StoreLocationTests {
    @Test(arguments: [
        "alstats.sqlite", "/var/lib/alstats/events.sqlite", "./a b/c.sqlite", "C:file", "name:with:colons",
    ])
    func aTextWithoutASchemeIsAnSQLiteFilePath(text: String) throws {
        #expect(try StoreLocation(parsing: text) == .sqlite(path: text))
    }

    @Test func aPostgresURLGivesEveryPart() throws {
        let location = try StoreLocation(
            parsing: "postgres://alstats:\(password)@db.example.com:6543/stats?sslmode=verify-full")
        #expect(
            location
                == .postgres(
                    PostgresLocation(
                        user: "alstats", password: password, host: "db.example.com", port: 6543,
                        database: "stats", sslMode: .verifyFull)))
    }

    @Test func thePostgresqlSchemeInAnyCaseTheDefaultPortAndSSLModeAreRead() throws {
        let location = try StoreLocation(parsing: "PostgreSQL://reader@localhost/alstats")
        #expect(
            location
                == .postgres(
                    PostgresLocation(user: "reader", password: nil, host: "localhost", database: "alstats")))
        guard case .postgres(let server) = location else { return }
        #expect(server.port == 5432)
        #expect(server.sslMode == .prefer)
    }

    @Test func percentEscapesAndIPv6HostsAreDecoded() throws {
        let location = try StoreLocation(
            parsing: "postgres://us%40er:p%40ss%2Fw%3Ard@[::1]:5433/my%20db?sslmode=disable")
        #expect(
            location
                == .postgres(
                    PostgresLocation(
                        user: "us@er", password: "p@ss/w:rd", host: "::1", port: 5433, database: "my db",
                        sslMode: .disable)))
        #expect(location.description == "postgres://us@er:***@[::1]:5433/my db?sslmode=disable")
    }

    @Test func thePasswordNeverAppearsInTheDescriptionsOrTheMirror() throws {
        let location = try StoreLocation(parsing: "postgres://alstats:\(password)@db.example.com/stats")
        #expect(location.description == "postgres://alstats:***@db.example.com:5432/stats?sslmode=prefer")
        #expect(!"\(location)".contains(password))
        #expect(!String(reflecting: location).contains(password))
        var dumped = ""
        dump(location, to: &dumped)
        #expect(!dumped.contains(password))
        #expect(dumped.contains("db.example.com"))
    }

    @Test(arguments: [
        ("postgres://alstats:\(password)@db.example.com/stats?sslmode=sometimes", "sslmode must be one of"),
        ("postgres://alstats:\(password)@db.example.com/stats?password=\(password)", "unknown parameter 'password'"),
        ("postgres://alstats:\(password)@db.example.com:99999/stats", "port must be a number from 1 to 65535"),
        ("postgres://alstats:\(password)@db.example.com:5432", "name the database"),
        ("postgres://alstats:\(password)@/stats", "name the host"),
        ("postgres://:\(password)@db.example.com/stats", "name the user"),
        ("postgres://db.example.com/stats", "name the user"),
        ("postgres://alstats:pa/\(password)@db.example.com/stats", "name the user"),
        ("postgres://alstats:\(password)%zz@db.example.com/stats", "malformed percent escape"),
        ("postgres://alstats:\(password)@[::1/stats", "closing ]"),
        ("mysql://alstats:\(password)@db.example.com/stats", "not a database this alstats knows"),
        ("", "empty"),
    ])
    func aMalformedLocationIsATypedErrorWithoutThePassword(text: String, problem: String) {
        let error = #expect(throws: StoreError.self) { try StoreLocation(parsing: text) }
        #expect(error?.kind == .invalidLocation)
        #expect(error?.message.contains(problem) == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(password) == false)
        #expect(error?.path.contains(password) == false)
    }

    @Test func redactingHidesAPasswordHoldingSeparatorsWhole() {
        #expect(PostgresLocation.redacting("postgres://u:a/b?c@d#e@host/db") == "postgres://u:***@host/db")
        #expect(
            PostgresLocation.redacting("postgres://u@host/db?sslmode=require&password=x&Password=y")
                == "postgres://u@host/db?sslmode=require&password=***&Password=***")
        #expect(PostgresLocation.redacting("postgres://u@host/db") == "postgres://u@host/db")
        #expect(PostgresLocation.redacting("alstats.sqlite") == "alstats.sqlite")
    }
}

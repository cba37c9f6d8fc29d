// The test database and the parity events moved to the PostgresTestSupport target, which alstatsTests shares: every
// file of this target names them as before, without an import of its own.
@_exported import PostgresTestSupport

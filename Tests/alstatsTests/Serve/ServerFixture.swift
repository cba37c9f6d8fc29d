#if Server

import TestSupport

/// A fresh database folder for a run of the built `alstats serve` (TestSupport's, shared with EventServerTests).
typealias ServerFixture = ServerFolder

#endif

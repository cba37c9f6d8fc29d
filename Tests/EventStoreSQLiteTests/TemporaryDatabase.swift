import TestSupport

/// TestSupport's temporary database, under the name every test of this target already uses without
/// importing TestSupport.
typealias TemporaryDatabase = TestSupport.TemporaryDatabase

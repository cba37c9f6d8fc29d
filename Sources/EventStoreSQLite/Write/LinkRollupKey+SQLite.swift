import EventStoreInterface
import MeasurementEvents
import SQLiteSupport

extension LinkRollupKey {
    func bind(to statement: SQLiteStatement, count: Int) {
        statement.bind(1, bucket)
        statement.bind(2, name)
        statement.bind(3, slug)
        statement.bind(4, origin)
        statement.bind(5, ref)
        statement.bind(6, refererAppName)
        statement.bind(7, status)
        statement.bind(8, crawler)
        statement.bind(9, Int64(count))
    }
}

extension LinkVisitorKey {
    func bind(to statement: SQLiteStatement) {
        statement.bind(1, day)
        statement.bind(2, slug)
        statement.bind(3, ref)
        statement.bind(4, refererAppName)
        statement.bind(5, visitor)
    }
}

extension LinkVisitorCountKey {
    func bind(to statement: SQLiteStatement, count: Int) {
        statement.bind(1, day)
        statement.bind(2, slug)
        statement.bind(3, scope.rawValue)
        statement.bind(4, ref)
        statement.bind(5, refererAppName)
        statement.bind(6, Int64(count))
    }
}

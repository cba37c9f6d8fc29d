import Synchronization

/// A count shared by a ``Redactor`` and its copies: values replaced whole (see
/// ``Redactor/conservativeRedactions``).
final class RedactionCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }

    func add(_ amount: Int) { count.add(amount, ordering: .relaxed) }

    func take() -> Int { count.exchange(0, ordering: .relaxed) }
}

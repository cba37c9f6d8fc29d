import MeasurementEvents

extension FlatLine {
    /// Whether a backend may write this line's row from its bytes: `false` for a hit of a hosted link and a
    /// device's loss record (they count elsewhere, as their decoded events say), and for a line whose values
    /// `redactor` would change. Such a line's decoded event is written instead, the one way those rows are made.
    package func isWritableAsRead(redactedWith redactor: Redactor) -> Bool {
        if FlatLine.equals(name, LinkRollupKey.hitName) || FlatLine.equals(name, DeviceLoss.eventName) { return false }
        guard !redactor.secretKeys.isEmpty else { return true }
        for field in fields where redactor.isSecret(keyBytes: field.key) || redactor.exposesSecret(utf8: field.value) {
            return false
        }
        return true
    }
}

extension EventID {
    /// The 128 bits of an id that is a UUID (big-endian halves), or `nil` for an id kept as text.
    ///
    /// Stores use it to keep UUID ids as 16 bytes; ``init(uuidHigh:low:)`` reads them back.
    ///
    /// ```swift
    /// let id = EventID("0192f5c3-8a1b-7c4d-9e2f-0123456789ab")
    /// id.uuidValue?.high   // 0x0192f5c38a1b7c4d
    /// ```
    public var uuidValue: (high: UInt64, low: UInt64)? {
        if case .uuid(let high, let low) = storage { return (high, low) }
        return nil
    }

    /// The id whose UUID has these 128 bits (big-endian halves); it prints in lowercase canonical form.
    /// - Parameters:
    ///   - high: the first 8 bytes of the UUID.
    ///   - low: the last 8 bytes of the UUID.
    public init(uuidHigh high: UInt64, low: UInt64) {
        self.init(high: high, low: low)
    }
}

import Testing

@testable import MeasurementEvents

/// The byte helpers the readers and the redactor share.
struct ASCIIBytesTests {
    /// The `memchr` search agrees with a plain search from every start, on a buffer with the byte at its ends,
    /// repeated, and absent, and on an empty buffer.
    @Test func firstIndexFromAStartAgreesWithAPlainSearch() {
        let samples: [[UInt8]] = [
            [], Array("\n".utf8), Array("a\nb\n\nc".utf8), Array("no newline here".utf8), Array("\nstarts".utf8),
            Array("ends\n".utf8),
        ]
        for sample in samples {
            sample.withUnsafeBufferPointer { bytes in
                for start in 0...(bytes.count + 1) {
                    let plain = start < bytes.count ? bytes[start...].firstIndex(of: 0x0A) ?? bytes.count : bytes.count
                    #expect(bytes.firstIndex(of: 0x0A, from: start) == plain, "\(sample) from \(start)")
                }
            }
        }
    }

    @Test func caseBlindComparisonFoldsOnlyASCIILetters() {
        #expect(Array("Content-Type".utf8).equalsIgnoringASCIICase(Array("content-type".utf8)))
        #expect(!Array("Content-Typ".utf8).equalsIgnoringASCIICase(Array("content-type".utf8)))
        #expect(!Array("É".utf8).equalsIgnoringASCIICase(Array("é".utf8)), "no folding beyond ASCII")
        #expect(UInt8(ascii: "[").asciiLowercased == UInt8(ascii: "["), "only A to Z move")
    }
}

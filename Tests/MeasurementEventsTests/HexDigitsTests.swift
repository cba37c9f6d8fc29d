import Testing

@testable import MeasurementEvents

/// Hex digits both ways, for escapes.
struct HexDigitsTests {
    @Test func everyDigitReadsBackAsItsValueInEitherCase() {
        for value in 0..<16 {
            #expect(HexDigits.value(HexDigits.upper[value]) == UInt8(value))
            #expect(HexDigits.value(HexDigits.lower[value]) == UInt8(value))
        }
    }

    @Test(arguments: ["g", "G", "/", ":", "@", "`", " ", "%"])
    func aByteThatIsNoHexDigitHasNoValue(character: Character) {
        #expect(HexDigits.value(character.asciiValue!) == nil)
    }
}

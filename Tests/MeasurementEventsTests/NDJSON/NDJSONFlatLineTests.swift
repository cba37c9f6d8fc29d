import Testing

@testable import MeasurementEvents

/// Whether the one-pass reader (``NDJSONCodec/decodeFlat(utf8:truncatedValues:)``) and the tree reader give
/// the same answer for a line: the same event and truncation count whenever the one-pass reader takes the
/// line, and from ``NDJSONCodec/decode(utf8:truncatedValues:)`` the tree reader's event or error always.
enum NDJSONReaderAgreement {
    static func agree(on bytes: [UInt8], codec: NDJSONCodec) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var treeCut = 0
            let tree = Result { () throws(NDJSONLineError) in
                try codec.decodeTree(utf8: buffer, truncatedValues: &treeCut)
            }
            var publicCut = 0
            let answer = Result { () throws(NDJSONLineError) in
                try codec.decode(utf8: buffer, truncatedValues: &publicCut)
            }
            guard answer == tree, publicCut == treeCut else { return false }
            var flatCut = 0
            guard scanAgrees(buffer, with: answer, cut: publicCut, codec: codec) else { return false }
            guard let flat = codec.decodeFlat(utf8: buffer, truncatedValues: &flatCut) else { return true }
            return (try? tree.get()) == flat && flatCut == treeCut
        }
    }

    /// Whether the reader in place (``NDJSONCodec/scan(_:into:)``), when it takes the line, finds the event that
    /// `decoded` is, with no value cut.
    static func scanAgrees(
        _ buffer: UnsafeBufferPointer<UInt8>, with decoded: Result<MeasurementEvent, NDJSONLineError>, cut: Int,
        codec: NDJSONCodec
    ) -> Bool {
        var line = FlatLine()
        guard codec.scan(buffer, into: &line) else { return true }
        guard case .success(let event) = decoded, cut == 0 else { return false }
        if let text = line.idText, String(decoding: text, as: UTF8.self) != event.id.description { return false }
        return event == NDJSONReaderAgreement.event(of: line)
    }

    /// The event a line read in place stands for.
    static func event(of line: FlatLine) -> MeasurementEvent {
        var fields: [String: String] = [:]
        for field in line.fields {
            fields[String(decoding: field.key, as: UTF8.self)] = String(decoding: field.value, as: UTF8.self)
        }
        return MeasurementEvent(
            id: line.id, name: String(decoding: line.name, as: UTF8.self), fields: fields, timestamp: line.timestamp)
    }

    /// Whether the reader in place takes `text`.
    static func scans(_ text: String, codec: NDJSONCodec) -> Bool {
        var line = FlatLine()
        return Array(text.utf8).withUnsafeBufferPointer { codec.scan($0, into: &line) }
    }
}

struct NDJSONFlatLineTests {
    static let limits = FlatteningLimits(maximumFields: 8, maximumKeyBytes: 16, maximumValueBytes: 24, maximumDepth: 3)

    /// Lines in the shapes exports and SDKs write: the one-pass reader must take them all (were it to give
    /// up on them, every line would pay for both readers and this test is how we would know).
    static let commonShapes = [
        #"{"fields":{"sourceHost":"h","type":"failed","z":"1"},"name":"al_nav_out","ts":"2025-11-21T00:00:00Z"}"#,
        #"{"id":"0192f5c3-0000-7000-8000-000000000001","name":"al_nav_in","ts":1763683200000,"fields":{"ref":"a"}}"#,
        #"{"name":"al_nav_out","ts":"2025-11-21T00:00:00.5Z","fields":{"success":"1","type":"failed","intentData":"x"}}"#,
        #"{"id":null,"name":"al_ref_back_out","ts":-5,"fields":null}"#,
        #"  {"fields":{},"ts":1.0,"name":"a"}  "#,
        #"{"name":"a","ts":1,"fields":{"k":"caf\u00e9 \"quoted\" \ud83d\ude00","k":"last"}}"#,
        #"{"name":"a","ts":1,"fields":{"long":"a value longer than the twenty-four byte limit"}}"#,
        // A real feed's shapes (issue 56): numbers, booleans and nulls, nested objects and arrays, other top-level
        // keys, times with six fractional digits or an offset.
        #"{"name":"al_nav_out","ts":"2025-10-06T00:11:01.971234Z","fields":{"ms":1234,"d":12.5,"f":true,"c":null}}"#,
        #"{"type":"track","name":"a","ts":"2025-10-06T02:11:01.971+02:00","fields":{"x":{"s":"1","p":3,"q":false}}}"#,
        #"{"name":"a","ts":1,"fields":{"tags":["new",{"b":1,"a":2}],"n":-0.5e-3},"context":{"library":{"v":[1]}}}"#,
        #"{"sentAt":"2025-10-06T00:11:03Z","name":"a","ts":1,"fields":{"d":{"os":{"n":"A"}},"d/os/n":"literal"}}"#,
        // Android's aliases with values that are not strings are renamed as the tree reader renames them (fuzzed).
        #"{"name":"x","ts":-62135596800000,"fields":{"intentData":72036854775808,"sourceHost":true}}"#,
    ]

    @Test(arguments: commonShapes)
    func theOnePassReaderTakesTheShapesExportsAndSDKsWrite(line: String) {
        let codec = NDJSONCodec(flattener: Flattener(limits: Self.limits))
        var cut = 0
        let event = Array(line.utf8).withUnsafeBufferPointer { codec.decodeFlat(utf8: $0, truncatedValues: &cut) }
        #expect(event != nil)
        #expect(NDJSONReaderAgreement.agree(on: Array(line.utf8), codec: codec))
    }

    /// The one-pass reader buffers the first 32 members before it makes the dictionary: around that edge, with a
    /// key repeated before it, across it and after it, both readers give the same event, the last value of each key,
    /// and refuse the same lines over the field limit.
    @Test(arguments: [1, 12, 13, 31, 32, 33, 40, 70])
    func manyMembersAndRepeatsAroundTheBufferAgree(members: Int) {
        for maximumFields in [8, 64] {
            let codec = NDJSONCodec(
                flattener: Flattener(
                    limits: FlatteningLimits(
                        maximumFields: maximumFields, maximumKeyBytes: 16, maximumValueBytes: 24, maximumDepth: 3)))
            let keys = (0..<members).map { index in index % 11 == 10 ? "k\(index / 3)" : "k\(index)" }
            let body = keys.enumerated().map { #""\#($1)":"v\#($0)""# }.joined(separator: ",")
            let line = #"{"name":"a","ts":1,"fields":{\#(body)}}"#
            #expect(NDJSONReaderAgreement.agree(on: Array(line.utf8), codec: codec), "\(line)")
            var cut = 0
            let event = Array(line.utf8).withUnsafeBufferPointer { codec.decodeFlat(utf8: $0, truncatedValues: &cut) }
            let distinct = Set(keys).count
            #expect((event != nil) == (distinct <= maximumFields), "\(members) members, limit \(maximumFields)")
            if let event {
                #expect(event.fields.count == distinct)
                #expect(event.fields[keys[members - 1]] == "v\(members - 1)")
            }
        }
    }

    /// Lines in the shapes exports, SDKs and the benchmark's realistic lines write, every text printable ASCII: the
    /// reader in place takes them all (an ingest into PostgreSQL writes them from their bytes), with the event the
    /// decoder reads.
    @Test(arguments: [
        #"{"id":"0192f5c3-0000-7000-8000-000000000001","name":"al_nav_in","ts":1763683200000,"fields":{"ref":"a"}}"#,
        #"{"name":"al_nav_out","ts":"2025-11-21T00:00:00.5Z","fields":{"success":"1","type":"failed","intentData":"x"}}"#,
        #"{"fields":{"sourceHost":"h","sourceURLHost":"kept","z":"","":"empty key"},"name":"a","ts":1,"id":null}"#,
        #"{"id":"0192F5C3-0000-7000-8000-000000000001","name":"a","ts":"2025-11-21 01:00:00+01:00","fields":null}"#,
        #"{"id":"text id","name":"a","ts":-1763683200000,"fields":{}}"#, #"{"name":"a","ts":0}"#,
        #"{"name":"a","ts":253402300799999,"fields":{"type":"failed","intentData":"i","outputURL":"o"}}"#,
        #"{"name":"al_nav_in","ts":"2025-11-21T00:00:00Z","fields":{"inputURL":"a://b?d=%7B%22x%22%7D"}}"#,
        // A real feed's scalars (issue 56): integers, booleans, `null`, the escapes JSON encoders write, other
        // top-level members.
        #"{"name":"a","ts":1,"fields":{"n":31,"m":-7,"z":0,"big":999999999999999999,"f":true,"g":false,"x":null}}"#,
        #"{"name":"a","ts":1,"fields":{"e":"{\"s\":\"5d\"}","p":"a\/b","b":"c\\d","type":"fail\/ed"}}"#,
        #"{"type":"track","name":"a","sentAt":"2025-10-06T00:11:03Z","ts":1,"n":2,"ok":true,"no":null,"fields":{}}"#,
        #"{"name":"x","ts":1,"fields":{"intentData":72036854775808,"sourceHost":true,"success":1}}"#,
        // Nested objects of scalars, flattened to `parent/child`; other members holding objects.
        #"{"name":"a","ts":1,"fields":{"d":{"m":"P4","os":{"n":"A","v":"12"}},"x":{"p":31,"q":true},"e":{}}}"#,
        #"{"name":"a","ts":1,"fields":{"":{"s":"1","":{"t":"2"}},"u":{"":"3"}}}"#,
        // Arrays of scalars, as the compact text the flattener writes for them.
        #"{"name":"a","ts":1,"fields":{"tags":["new","sale"],"n":[1,-2,true,false,null],"e":[],"d":{"t":["x"]}}}"#,
        #"{"name":"a","ts":1,"context":{"lib":{"n":"x","v":"1"},"l":"en","z":{}},"fields":{"d/m":"x","d":{"n":"y"}}}"#,
    ])
    func theReaderInPlaceTakesTheCommonShapes(line: String) {
        let codec = NDJSONCodec(flattener: Flattener(limits: Self.limits))
        #expect(NDJSONReaderAgreement.scans(line, codec: codec))
        #expect(NDJSONReaderAgreement.agree(on: Array(line.utf8), codec: codec))
    }

    /// Lines the reader in place leaves to the decoder: white space, escapes, other bytes than printable ASCII, a
    /// repeated member, a number it does not read as an integer, a value to cut, limits broken, other members.
    @Test func aLineOverAMebibyteIsLeftToTheDecoder() throws {
        // Within the standard limits (twenty values of 60,000 bytes), but its buffer would be twice the line, kept
        // for the rest of the run.
        let value = String(repeating: "x", count: 60_000)
        let fields = (0..<20).map { #""f\#($0)":"\#(value)""# }.joined(separator: ",")
        let line = #"{"name":"a","ts":1,"fields":{"# + fields + "}}"
        #expect(line.utf8.count > NDJSONCodec.maximumScannedBytes)
        let scanned = NDJSONReaderAgreement.scans(line, codec: NDJSONCodec())
        #expect(!scanned)
        let event = try NDJSONCodec().decode(line)
        #expect(event.fields.count == 20 && event.fields["f7"] == value)
    }

    @Test(arguments: [
        #" {"name":"a","ts":1}"#, #"{"name":"a","ts":1} "#, #"{"name":"a","ts":1}\#r"#, #"{"name":"a\u0062","ts":1}"#,
        #"{"name":"café","ts":1}"#, #"{"name":"a","name":"a","ts":1}"#, #"{"name":"a","ts":1.0}"#,
        #"{"name":"a","ts":1e3}"#, #"{"name":"a","ts":01}"#, #"{"name":"a","ts":1234567890123456789}"#,
        #"{"name":"a","ts":9999999999999999999}"#, #"{"name":"a","ts":-99999999999999999999999}"#,
        #"{"name":"a","ts":1,"fields":{"k":"a value longer than the twenty-four byte limit"}}"#,
        #"{"name":"a","ts":1,"fields":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9"}}"#,
        #"{"name":"a","ts":1,"fields":{"k":"1","k":"2"}}"#, #"{"name":"a","ts":1,"other":{"x":[1.5]}}"#,
        #"{"name":"a","ts":1,"id":""}"#, #"{"name":"","ts":1}"#, #"{"ts":1}"#, #"{"name":"a","ts":"2025-11-21"}"#,
        #"{"name":"a","ts":1,"fields":{"n":1.5}}"#, #"{"name":"a","ts":-}"#,
        #"{"name":"a","ts":1,"fields":{"k":"\t"}}"#,
        // Numbers the decoder writes back otherwise, escapes other than \" \\ \/, nested values, and `null`s that a
        // repeated key or the limits make the decoder's to read.
        #"{"name":"a","ts":1,"fields":{"n":-0}}"#, #"{"name":"a","ts":1,"fields":{"n":01}}"#,
        #"{"name":"a","ts":1,"fields":{"n":1e3}}"#, #"{"name":"a","ts":1,"fields":{"n":1234567890123456789}}"#,
        #"{"name":"a","ts":1,"fields":{"k":"a\u0062"}}"#, #"{"name":"a","ts":1,"fields":{"k":"a\nb"}}"#,
        #"{"name":"a","ts":1,"fields":{"k":"caf\u00e9"}}"#, #"{"name":"a","ts":1,"fields":{"k":["x",{}]}}"#,
        #"{"name":"a","ts":1,"fields":{"k":null,"k":"2"}}"#, #"{"name":"a","ts":1,"fields":{"k":"1","k":null}}"#,
        #"{"name":"a","ts":1,"fields":{"a-key-longer-than-sixteen":null}}"#, #"{"name":"a","ts":1,"fields":{"k":tru}}"#,
        #"{"name":"a","ts":1,"fields":{"k":"\""}"#, #"{"name":"a","ts":1,"other":[1e2]}"#,
        // Nested objects the flattener reads otherwise: a `null` inside, a key given twice, keys that collide once
        // flattened, past the depth or key limits, an array inside.
        #"{"name":"a","ts":1,"fields":{"d":{"k":null}}}"#,
        #"{"name":"a","ts":1,"fields":{"d":{"a":"1"},"d":{"b":"2"}}}"#,
        #"{"name":"a","ts":1,"fields":{"d":{"a":"1","a":"2"}}}"#,
        #"{"name":"a","ts":1,"fields":{"d/a":"1","d":{"a":"2"}}}"#,
        #"{"name":"a","ts":1,"fields":{"a":{"b":{"c":{"d":{"e":"1"}}}}}}"#,
        #"{"name":"a","ts":1,"fields":{"d":{"t":[0.5]}}}"#,
        #"{"name":"a","ts":1,"fields":{"averyveryverylongkey":{}}}"#,
        #"{"name":"a","ts":1,"fields":{"abcdefgh":{"ijklmnop":"1"}}}"#,
        // Arrays whose text the flattener writes otherwise.
        #"{"name":"a","ts":1,"fields":{"t":[1.5]}}"#, #"{"name":"a","ts":1,"fields":{"t":["a\/b"]}}"#,
        #"{"name":"a","ts":1,"fields":{"t":[{"b":1,"a":2}]}}"#, #"{"name":"a","ts":1,"fields":{"t":[[1]]}}"#,
        #"{"name":"a","ts":1,"fields":{"t":[ 1]}}"#, #"{"name":"a","ts":1,"fields":{"t":[-0]}}"#,
        #"{"name":"a","ts":1,"fields":{"t":[1,]}}"#,
    ])
    func theReaderInPlaceLeavesOtherLinesToTheDecoder(line: String) {
        let codec = NDJSONCodec(flattener: Flattener(limits: Self.limits))
        #expect(!NDJSONReaderAgreement.scans(line, codec: codec))
        #expect(NDJSONReaderAgreement.agree(on: Array(line.utf8), codec: codec))
    }

    /// Lines the one-pass reader leaves to the tree, or that test where the two could part: both must give
    /// the same event or the same error.
    @Test(arguments: [
        #"{"name":"a","ts":1,"fields":{"n":1,"o":{"p":"q"},"r":[1],"s":null,"t":true}}"#,
        #"{"name":"a","ts":1,"fields":{"k":"v","k":null}}"#, #"{"name":"a","ts":1,"fields":{"k":null,"k":"v"}}"#,
        #"{"name":"a","ts":1,"fields":{"k":{"x":"1"},"k":"v"}}"#,
        #"{"name":"a","ts":1,"fields":{"a":{"b":{"c":{"d":1}}}}}"#,
        #"{"name":"a","ts":1,"fields":{"a":1e400,"b":-0,"c":0.1,"d":100000000000000000000}}"#,
        #"{"name":"a","ts":1,"fields":{"o":{}},"other":[1,2,{"x":null}]}"#, #"{"name":"a","ts":1,"other":}"#,
        #"{"name":"a","ts":1,"other":{"x":1},"fields":{"k":"v"}}"#,
        #"{"name":"a","ts":1,"fields":{"caf\u00e9":"1","cafe\u0301":"2"}}"#,
        #"{"name":"a","ts":1,"fields":{"a":"1","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7","h":"8","i":"9"}}"#,
        #"{"name":"a","ts":1,"fields":{"a":"1","a":"2","a":"3","b":"2","c":"3","d":"4","e":"5","f":"6","g":"7"}}"#,
        #"{"name":"a","ts":1,"fields":{"a key longer than sixteen bytes":"v"}}"#,
        #"{"name":"a","ts":1,"id":""}"#, #"{"name":"a","ts":1,"id":7}"#, #"{"name":7,"ts":1}"#,
        #"{"name":"a","name":"","ts":1}"#, #"{"name":"","name":"a","ts":1}"#, #"{"name":"a","ts":1.5}"#,
        #"{"name":"a","ts":"yesterday"}"#, #"{"name":"a","ts":true}"#, #"{"name":"a"}"#, #"{"name":"a","ts":1,}"#,
        #"{"name":"a","ts":1} x"#, #"{"name":"a","ts":1,"fields":{"k":"v",}}"#, #"{"name":"a","ts":1,"fields":"x"}"#,
        #"{"fields":{"sourceHost":"h","sourceURLHost":"kept"},"name":"a","ts":1}"#, "{}", "", "[1]",
        #"{"name":"a\ud800","ts":1}"#, #"{"name":"a","ts":1,"fields":{"k":"\u0000"}}"#,
    ])
    func bothReadersGiveTheSameAnswer(line: String) {
        let codec = NDJSONCodec(flattener: Flattener(limits: Self.limits))
        #expect(NDJSONReaderAgreement.agree(on: Array(line.utf8), codec: codec))
    }

    /// Times at the edges of ``EventTime/supportedRange`` (the years 0001 to 9999) are read by every reader, in
    /// place too; times past them are refused by every one as `bad_ts`, never taken in place: near `Int64.min` a
    /// time made the stores' bucket arithmetic trap, and stopped the collector.
    @Test(arguments: [
        ("-62135596800000", true), ("253402300799999", true), (#""0001-01-01T00:00:00Z""#, true),
        (#""9999-12-31T23:59:59.999Z""#, true), ("-62135596800001", false), ("253402300800000", false),
        ("-9223372036854775808", false), ("-9223372036854775000", false), ("9223372036854775807", false),
        ("999999999999999999", false), ("-999999999999999999", false), ("9.0e14", false),
        (#""0001-01-01T00:00:00+00:01""#, false), (#""9999-12-31T23:59:59.999-00:01""#, false),
        (#""0000-06-01T00:00:00Z""#, false),
    ])
    func timesOutsideTheYears0001To9999AreRefused(time: String, supported: Bool) {
        let codec = NDJSONCodec()
        let text = #"{"name":"al_nav_in","ts":\#(time),"fields":{"ref":"feed"}}"#
        let bytes = Array(text.utf8)
        #expect(NDJSONReaderAgreement.agree(on: bytes, codec: codec), "\(text)")
        let decoded = Result { () throws(NDJSONLineError) in try bytes.withUnsafeBufferPointer(codec.decode(utf8:)) }
        switch decoded {
        case .success(let event):
            #expect(supported && EventTime.supportedRange.contains(event.timestamp), "\(text)")
            #expect(NDJSONReaderAgreement.scans(text, codec: codec) == !time.contains("e"), "\(text)")
        case .failure(let error):
            #expect(!supported && error.code == "bad_ts", "\(text): \(error)")
            #expect(!NDJSONReaderAgreement.scans(text, codec: codec), "\(text)")
        }
    }

    /// A NUL (`\u0000`) in the name, the id, a field's name or value (nested too, or under an alias) is refused
    /// by every reader, as PostgreSQL cannot store it; one in a member that is not read, or in an array (kept as its
    /// JSON text), changes nothing, and an escaped backslash before `u0000` is no NUL.
    @Test(arguments: [
        (#"{"name":"al_nav\u0000in","ts":1,"fields":{"ref":"a"}}"#, false),
        (#"{"id":"x\u0000","name":"al_nav_in","ts":1,"fields":{"ref":"a"}}"#, false),
        (#"{"name":"al_nav_in","ts":1,"fields":{"re\u0000f":"a"}}"#, false),
        (#"{"name":"al_nav_in","ts":1,"fields":{"ref":"a\u0000"}}"#, false),
        (#"{"name":"al_nav_in","ts":1,"fields":{"extras":{"k":{"n":"\u0000"}}}}"#, false),
        // An array is kept as its JSON text, where the NUL stays written as `\u0000`.
        (#"{"name":"al_nav_in","ts":1,"fields":{"extras":{"k":["\u0000"]}}}"#, true),
        (#"{"name":"al_nav_out","ts":1,"fields":{"intentData":"x\u0000"}}"#, false),
        (#"{"name":"al_nav_in","ts":1,"note":"\u0000","fields":{"ref":"a"}}"#, true),
        (#"{"name":"al_nav_in","ts":1,"fields":{"ref":"a\\u0000"}}"#, true),
    ])
    func nulCharactersAreRefused(text: String, stored: Bool) {
        let codec = NDJSONCodec()
        let bytes = Array(text.utf8)
        #expect(NDJSONReaderAgreement.agree(on: bytes, codec: codec), "\(text)")
        let decoded = Result { () throws(NDJSONLineError) in try bytes.withUnsafeBufferPointer(codec.decode(utf8:)) }
        switch decoded {
        case .success(let event):
            #expect(stored && !event.holdsNUL, "\(text)")
        case .failure(let error):
            #expect(!stored && error.code == "nul_character", "\(text): \(error)")
        }
    }

    /// Lines in the common shapes with random bytes changed, removed or repeated: the two readers agree on
    /// every one (a divergence in any corner of the one-pass reader shows up here).
    @Test func bothReadersAgreeOnMutatedLines() {
        let codec = NDJSONCodec(flattener: Flattener(limits: Self.limits))
        var generator = SeededGenerator(seed: 7)
        let alphabet = Array(#"{}[]":,\ 0123456789.eE-+truefalsnameidtsfields"#.utf8) + [0xC3, 0xA9, 0xFF, 0x00]
        var taken = 0
        var scanned = 0
        var line = FlatLine()
        for round in 0..<20_000 {
            var bytes = Array(Self.commonShapes[round % Self.commonShapes.count].utf8)
            for _ in 0..<(1 + generator.next() % 3) {
                let at = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[at] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                case 1: bytes.remove(at: at)
                default: bytes.insert(bytes[at], at: at)
                }
                if bytes.isEmpty { break }
            }
            #expect(NDJSONReaderAgreement.agree(on: bytes, codec: codec), "\(String(decoding: bytes, as: UTF8.self))")
            var cut = 0
            if bytes.withUnsafeBufferPointer({ codec.decodeFlat(utf8: $0, truncatedValues: &cut) }) != nil {
                taken += 1
            }
            if bytes.withUnsafeBufferPointer({ codec.scan($0, into: &line) }) { scanned += 1 }
        }
        // Many mutations keep a valid line, and the one-pass reader must have read those; the reader in place
        // takes those in printable ASCII without an escape or white space.
        #expect(taken > 2_000)
        #expect(scanned > 1_000)
    }
}

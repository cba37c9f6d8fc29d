// libFuzzer target: the redactor (Redactor.redact(urlString:) and redact(fields:)) on any text.
// Built by .ci/fuzz together with the MeasurementEvents sources, as one module.
// Invariants checked (a violation traps, which libFuzzer reports as a crash):
// - any text gives a result, never a crash or a hang;
// - no secret stays visible: the result, decoded as a consumer could (percent escapes at any depth, JSON
//   escapes), shows no secret key whose value is not REDACTED;
// - redaction is idempotent: redacting the result again changes nothing;
// - text that shows no secret is returned byte for byte;
// - a field named after a secret key is always REDACTED, whatever its value.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedactor(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let redactor = Redactor()
    let redacted = redactor.redact(urlString: text)
    precondition(!redactor.exposesSecret(redacted), "a secret stays visible")
    precondition(redactor.redact(urlString: redacted) == redacted, "redaction is not idempotent")
    if !redactor.exposesSecret(text) {
        precondition(redacted.utf8.elementsEqual(text.utf8), "text without a secret was changed")
    }
    let fields = redactor.redact(fields: ["Access_Token": text, "inputURL": text])
    precondition(fields["Access_Token"] == Redactor.replacement, "a secret field kept its value")
    precondition(fields["inputURL"] == redacted, "fields and URLs are redacted differently")
    return 0
}

import MeasurementEvents
import Testing

/// The matcher that tells a misspelt catalogue field name (stored among the extras) from a field of a host's own.
struct FieldNameNearMissTests {
    @Test(arguments: [
        ("referer_app", "refererAppName"), ("refererApp", "refererAppName"), ("referrerAppName", "refererAppName"),
        ("RefererAppName", "refererAppName"), ("refererAppNmae", "refererAppName"),
        ("referer_app_name", "refererAppName"),
        ("referrer_url", "refererURL"), ("source_url", "sourceURL"), ("targetUrl", "targetURL"),
        ("input_url_scheme", "inputURLScheme"), ("sourceapp", "sourceApplication"), ("source_host", "sourceURLHost"),
        ("intent_data", "outputURL"), ("Ref", "ref"), ("TYPE", "type"), ("Success", "success"), ("errors", "error"),
        ("verison", "version"), ("_ref", "ref"),
    ])
    func aNearMissNamesTheCatalogueNameProbablyMeant(field: String, meant: String) {
        #expect(FieldName.nearMiss(of: field) == meant)
    }

    /// The catalogue's names, the aliases ingest renames, and fields of a host's own or of alstats' own events
    /// (link hits, device losses, Segment calls): never a warning.
    @Test(arguments: [
        "refererAppName", "inputURL", "sourceURLHost", "ref", "type", "error", "version", "sourceHost", "intentData",
        "campaign", "al_applink_data_extras_foo", "extras/fb_app_id", "os_version", "sdk_version", "status", "session",
        "source", "target", "target_id", "referrer", "referral", "referrerHost", "referer_name", "slug", "platform",
        "crawler", "visitor", "reason", "count", "app", "name", "title", "url", "path", "search", "types", "refs",
        "ref_id", "error_code", "success_url", "query/utm_source", "", "r", "référerAppName",
        String(repeating: "referer_app", count: 5),
    ])
    func aNameThatIsNotANearMissIsNotNamed(field: String) {
        #expect(FieldName.nearMiss(of: field) == nil)
    }

    @Test func theBytesOfALineReadInPlaceAreMatchedAsTheirText() {
        var key = "referer_app"
        let meant = key.withUTF8 { FieldName.nearMiss(ofUTF8: $0) }
        #expect(meant == "refererAppName")
    }
}

import MeasurementEvents

/// A store a hosted link's store button leads to.
public enum StorePlatform: String, Sendable, Hashable, CaseIterable {
    /// The App Store: the link's first `ios`, `iphone` or `ipad` target with an `app_store_id`.
    case ios
    /// Google Play: the link's first `android` target (each has a `package`).
    case android

    /// The platform groups whose targets lead to this store, in the order they are looked at.
    var groups: [LinkPlatformGroup] {
        switch self {
        case .ios: [.ios, .iphone, .ipad]
        case .android: [.android]
        }
    }
}

/// The store hop, `GET /l/{slug}/store/{ios|android}` (docs/install.md): where a store button leads, and what the
/// hop records of a tap (`alstats_link_store`).
///
/// ```swift
/// LinkStoreHop.storeURL(link: invite, platform: .android, click: "3q2-7wAAAAAAAAAAAAAAAA")
/// // "https://play.google.com/store/apps/details?id=com.example&referrer=alstats_click%3D3q2-7w...%26utm_source%3D..."
/// ```
public enum LinkStoreHop {
    /// The hop's path for `slug` and `platform`: `/l/{slug}/store/{platform}`.
    public static func path(slug: String, platform: StorePlatform) -> String {
        "/l/" + PercentEncoding.encode(slug) + "/store/" + platform.rawValue
    }

    /// The target whose store the hop leads to: the first of the platform's groups with a store (`app_store_id`,
    /// `package`); `nil` when the link has none.
    public static func target(of link: HostedLink, platform: StorePlatform) -> LinkTarget? {
        for group in platform.groups {
            for target in link.targets[group] ?? [] {
                switch platform {
                case .ios: if target.appStoreId != nil { return target }
                case .android: if target.package != nil { return target }
                }
            }
        }
        return nil
    }

    /// Whether `link` has a store button: a target with an `app_store_id`, or an `android` target.
    public static func hasStore(_ link: HostedLink) -> Bool {
        StorePlatform.allCases.contains { target(of: link, platform: $0) != nil }
    }

    /// The store page the hop redirects to, `nil` when the link has no store target for `platform` (404):
    /// - `ios`: `https://apps.apple.com/app/id{app_store_id}`;
    /// - `android`: `https://play.google.com/store/apps/details?id=PACKAGE&referrer=R`, `R` the percent-encoded
    ///   install referrer `alstats_click=TOKEN&utm_source=alstats&utm_medium=link&utm_campaign=SLUG` (without
    ///   `alstats_click` when there is no `click`), which Google Play hands, decoded, to the installed app.
    public static func storeURL(link: HostedLink, platform: StorePlatform, click: String?) -> String? {
        guard let target = target(of: link, platform: platform) else { return nil }
        switch platform {
        case .ios:
            return target.appStoreId.map { "https://apps.apple.com/app/id" + PercentEncoding.encode($0) }
        case .android:
            guard let package = target.package else { return nil }
            let referrer = installReferrer(slug: link.slug, click: click)
            return "https://play.google.com/store/apps/details?id=" + PercentEncoding.encode(package) + "&referrer="
                + PercentEncoding.encode(referrer)
        }
    }

    /// The install referrer the hop gives Google Play: `alstats_click=TOKEN&utm_source=alstats&utm_medium=link&
    /// utm_campaign=SLUG`, each value percent-encoded.
    public static func installReferrer(slug: String, click: String?) -> String {
        var pairs: [(String, String)] = []
        if let click { pairs.append((ClickToken.parameter, click)) }
        pairs += [("utm_source", "alstats"), ("utm_medium", "link"), ("utm_campaign", slug)]
        return PageText.query(pairs)
    }
}

extension LinkHitRequest {
    /// The fields of the `alstats_link_store` event of a tap on `link`'s store button for `platform` (this request
    /// is the hop's): `slug`, `platform` (the store's), `click` (``click``, when it has one), `ref` and `query/NAME`
    /// as for hits, `crawler` and `visitor`. The address itself is never among them.
    public func storeTapFields(link: HostedLink, platform: StorePlatform, hasher: VisitorHasher) -> [String: String] {
        var fields = self.fields(link: link, hasher: hasher)
        for name in ["status", "referrerHost"] { fields[name] = nil }
        fields["platform"] = platform.rawValue
        return fields
    }
}

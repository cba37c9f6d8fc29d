import EventStoreInterface
import HostedLinks
import MeasurementEvents

/// Everything `alstats serve` is started with (docs/collector.md).
///
/// ```swift
/// var configuration = EventServerConfiguration(databasePath: "alstats.sqlite", keys: AccessKeys(write: ["w1"]))
/// configuration.port = 0   // any free port; the running address is reported to `onServerRunning`
/// ```
public struct EventServerConfiguration: Sendable {
    /// The SQLite database file that ``buildApplication(configuration:logger:onServerRunning:)`` opens; the
    /// builder on an open backend does not read it.
    public var databasePath: String
    /// The address to listen on.
    public var host: String = "127.0.0.1"
    /// The port to listen on; 0 picks a free one.
    public var port: Int = 8080
    /// The keys and roles.
    public var keys: AccessKeys
    /// The address clients reach the server at (for links; informational for the collector).
    public var publicURL: String?
    /// How hard a commit works to survive a crash.
    public var durability: StoreDurability = .normal
    /// The most events queued for the writer (or being committed) at once; more gets 503.
    public var maximumQueuedEvents: Int = 100_000
    /// Whether `X-Forwarded-For` may be believed (accepted for the links routes; the collector stores no address).
    public var trustProxy: Bool = false
    /// The apps whose verified-link files `/.well-known/` serves (`ios_app_ids`, `android_apps` of the config).
    public var verifiedLinks = VerifiedLinkConfig()
    /// The redaction applied to every event before storage.
    public var redactor: Redactor = Redactor()
    /// How often the store's upkeep runs (``StoreUpkeep``: on PostgreSQL, the summaries of the time index's ranges
    /// that the collector's writes filled).
    public var upkeepInterval: Duration = .seconds(30)
    /// The timeouts, the connection cap and the write keys' rates (the config's `limits`).
    public var limits = ServerLimits()
    /// How long a click token can be claimed by the app installed after it (`deferred_window` of the config; 7 days):
    /// older clicks are refused and deleted, with their install ids (docs/install.md).
    public var deferredWindow: Duration = .seconds(7 * 86_400)
    /// How often the clicks past ``deferredWindow`` are deleted.
    public var clickSweepInterval: Duration = .seconds(300)
    /// The clock of `receivedAt` (Segment's clock-skew correction), of the write keys' rate limits, of hits and of
    /// clicks; injected in tests.
    public var clock: any EventClock = SystemEventClock()
    /// Where and how often the alerts are posted (the config file's `alerts`); `nil`: they are not.
    public var alerts: AlertDeliveryConfiguration?
    /// The clock of the alert notifier's windows and waits; injected in tests.
    public var alertClock: any AlertClock = SystemAlertClock()
    /// How long raw events are kept (`--retention`, the config file's `retention`): a service prunes the older
    /// ones once the store is ready and each day after (``RetentionService``); `nil`: they are kept for ever.
    public var retention: RetentionPeriod?
    /// The clock of the retention's cut-offs and waits; injected in tests.
    public var retentionClock: any AlertClock = SystemAlertClock()

    /// A configuration with the defaults of docs/collector.md.
    public init(databasePath: String, keys: AccessKeys) {
        self.databasePath = databasePath
        self.keys = keys
    }
}

import EventUpload

#if Server && !ALSTATS_URLSESSION
import EventUploadHTTPClient
#endif

/// The transport of the CLI's uploads (`alstats push`, `alstats demo`): AsyncHTTPClient on Linux, where
/// `URLSession` stalls after a dropped connection (docs/upload.md); `URLSession` on Apple platforms, where it is
/// the system's own, and in the core-only build, which has no NIO.
enum UploadTransports {
    /// A transport for one upload run.
    static func platformDefault() -> any UploadTransport {
        #if ALSTATS_URLSESSION || !Server
        URLSessionUploadTransport()
        #else
        AsyncHTTPClientUploadTransport()
        #endif
    }
}

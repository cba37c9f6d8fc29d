import Foundation
import TestSupport
import Testing

#if os(Linux) && Server
/// No module of the full Linux build uses `URLSession` (docs/design/architecture.md, "HTTP out"): the built
/// `alstats` must not load FoundationNetworking, nor the libcurl and TLS, Kerberos and LDAP libraries beneath it,
/// which would cost every command about 6 MB of memory.
struct LinkedLibrariesTests {
    @Test(.enabled(if: BuiltAlstats.shouldRun, "build alstats first with swift build"))
    func theFullLinuxBuildLoadsNoFoundationNetworking() throws {
        let libraries = try ProcessRunner.run("/usr/bin/ldd", [BuiltAlstats.require()])
        #expect(libraries.status == 0, "\(libraries.errors)")
        // A library every build loads, so that an ldd that printed nothing cannot pass.
        #expect(libraries.output.contains("libFoundation.so"))
        for library in ["libFoundationNetworking", "libcurl"] {
            #expect(!libraries.output.contains(library), "\(libraries.output)")
        }
    }
}
#endif

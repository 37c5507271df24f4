import Foundation
import LogisticsServer
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Development mode (generated secret, webhooks into private networks) stays on loopback unless asked otherwise.
@Suite("Development mode listens on loopback", .timeLimit(.minutes(2)))
struct ListenAddressTests {
    @Test("serve --host 0.0.0.0 in development: one line, exit 1")
    func refusedOnTheNetwork() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("listen-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        let process = try ServerProcess(
            arguments: ["serve", "--host", "0.0.0.0", "--port", "0", "--data-dir", data],
            environment: ["LOGISTICS_JWT_SECRET": ProcessTests.secret], captureStandardError: true)
        let run = try await process.runToEnd(timeout: .seconds(30))
        #expect(run.status == 1)
        let lines = await process.standardErrorText().split(separator: "\n")
        #expect(lines.count == 1, "\(lines)")
        #expect(lines.first?.contains("development mode listens on loopback only") == true, "\(lines)")
    }

    @Test("tracking links are absolute: on LOGISTICS_PUBLIC_URL, else the caller's Host, else the listen address")
    func linkBase() throws {
        var configuration = try ServerConfiguration.fromEnvironment([
            "LOGISTICS_PUBLIC_URL": "https://deliveries.example.com/"
        ])
        #expect(configuration.linkBaseURL(requestAuthority: "evil.example") == "https://deliveries.example.com")
        for bad in ["deliveries.example.com", "ftp://x.example", "https://x.example/track", "https://x.example?a=1"] {
            #expect(throws: ConfigurationError.self, "\(bad)") {
                try ServerConfiguration.fromEnvironment(["LOGISTICS_PUBLIC_URL": bad])
            }
        }
        configuration = ServerConfiguration()
        configuration.port = 9000
        #expect(configuration.linkBaseURL(requestAuthority: "192.168.1.20:9000") == "http://192.168.1.20:9000")
        // A Host that is not a plain host and port is not copied into a link.
        #expect(configuration.linkBaseURL(requestAuthority: "x.example/@evil") == "http://127.0.0.1:9000")
        configuration.host = "0.0.0.0"
        #expect(configuration.linkBaseURL(requestAuthority: nil) == "http://localhost:9000")
    }

    @Test("loopback in any spelling is fine; another address needs production or the explicit setting")
    func rules() throws {
        for host in ["127.0.0.1", "127.0.1.1", "localhost", "::1", "[::1]"] {
            #expect(ServerConfiguration.isLoopback(host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "192.168.1.10", "example.com", "127.0.0.1.example.com"] {
            #expect(!ServerConfiguration.isLoopback(host), "\(host)")
        }
        var configuration = ServerConfiguration()
        configuration.host = "0.0.0.0"
        #expect(throws: ConfigurationError.self) { try configuration.checkListenAddress() }
        configuration.developmentOnNetwork = true
        try configuration.checkListenAddress()
        configuration = try ServerConfiguration.fromEnvironment([
            "LOGISTICS_HOST": "0.0.0.0", "LOGISTICS_ENV": "production",
        ])
        try configuration.checkListenAddress()
        configuration = try ServerConfiguration.fromEnvironment([
            "LOGISTICS_HOST": "0.0.0.0", "LOGISTICS_DEVELOPMENT_ON_NETWORK": "on",
        ])
        try configuration.checkListenAddress()
    }
}

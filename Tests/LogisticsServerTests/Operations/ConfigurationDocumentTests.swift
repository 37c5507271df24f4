import Foundation
import Testing

@testable import LogisticsServer

/// docs/configuration.md and the variables the server reads come from the same declarations: a variable added to
/// a feature's settings without its line in the table (or a line left for one removed) fails here.
@Suite("Configuration and its document")
struct ConfigurationDocumentTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/configuration.md")

    /// The variables named in the first column of the configuration table (a line may name several).
    static func documented() throws -> Set<String> {
        let text = try String(contentsOf: document, encoding: .utf8)
        let table = text.components(separatedBy: "\n## Configuration")[1]
        var names: Set<String> = []
        for line in table.split(separator: "\n") where line.hasPrefix("| `") {
            let first = line.split(separator: "|", omittingEmptySubsequences: true)[0]
            for piece in first.split(separator: "`") where piece.allSatisfy({ $0.isUppercase || $0 == "_" }) {
                names.insert(String(piece))
            }
        }
        return names
    }

    @Test("every variable the server reads is documented, and every documented one is read")
    func sameVariables() throws {
        let read = Set(ServerConfiguration.environmentVariables)
        let documented = try Self.documented()
        #expect(read.subtracting(documented).sorted() == [], "read but not in docs/configuration.md")
        #expect(documented.subtracting(read).sorted() == [], "in docs/configuration.md but never read")
        #expect(read.count == ServerConfiguration.environmentVariables.count, "a variable declared twice")
    }

    @Test("each feature's variables set that feature's settings")
    func featureSettings() throws {
        let configuration = try ServerConfiguration.fromEnvironment([
            "LOGISTICS_GEOFENCE_RADIUS_M": "250", "LOGISTICS_ROUTING_PROVIDER": "external",
            "LOGISTICS_TRACKING_STALE_SECONDS": "3", "DATABASE_URL": "postgres://u:p@h/db",
            "LOGISTICS_RETAIN_FIXES_DAYS": "7", "LOGISTICS_SOCKETS_PER_CALLER": "off",
            "LOGISTICS_BATCHING": "on", "LOGISTICS_BATCH_MAX_DELAY_SECONDS": "120",
        ])
        #expect(configuration.delivery.geofenceRadiusM == 250)
        #expect(configuration.routing.provider == .external)
        #expect(configuration.tracking.staleSeconds == 3)
        #expect(configuration.database.url == "postgres://u:p@h/db")
        #expect(configuration.retention.fixesDays == 7)
        #expect(configuration.rateLimits.socketsPerCaller == nil)
        #expect(configuration.dispatch.batching?.maxDelaySeconds == 120)
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.fromEnvironment(["LOGISTICS_RETAIN_FIXES_DAYS": "0"])
        }
        #expect(throws: ConfigurationError.self) {
            try ServerConfiguration.fromEnvironment(["LOGISTICS_SMS_PROVIDER": "twilio"])
        }
    }
}

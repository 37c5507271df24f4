import Foundation
import Logging
import LogisticsCore
import LogisticsServer
import LogisticsStore
import RoadRouting
import Synchronization
import Testing

@testable import TestSupport

@Suite("Navigation failures are logged", .timeLimit(.minutes(3)))
struct NavigatorLoggingTests {
    /// A provider whose upstream is down.
    struct FailingProvider: DirectionsProvider {
        var name: String { "external" }
        var readiness: String { "down" }
        var roadTravelTime: RoadTravelTime? { nil }
        func route(_ request: RouteRequest, profile: RoutingProfile.Name?, now: Date) async throws -> Route {
            throw RoutingError.providerUnavailable("upstream answered HTTP 502")
        }
        func observe(_ fixes: [LocationFix], riderId: UUID) {}
    }

    final class CapturedLogs: Sendable {
        let lines = Mutex<[(Logger.Level, String, Logger.Metadata)]>([])
    }

    struct CapturingHandler: LogHandler {
        let store: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            store.lines.withLock { $0.append((event.level, "\(event.message)", event.metadata ?? [:])) }
        }
    }

    @Test("a provider failure is one error log line with the cause, and a 503 with the fixed title")
    func providerFailureIsLogged() async throws {
        let logs = CapturedLogs()
        let logger = Logger(label: "navigation-test") { _ in CapturingHandler(store: logs) }
        let navigator = Navigator(provider: FailingProvider(), logger: logger)
        do {
            _ = try await navigator.route(
                RouteRequest(from: GeoPoint(lat: 43.7396, lon: 7.4276), to: GeoPoint(lat: 43.7289, lon: 7.4170)),
                profile: nil, now: Date())
            Issue.record("expected a failure")
        } catch let error as LogisticsError {
            #expect(error.code == .navigationUnavailable)
            #expect(error.code.title == "Navigation service is temporarily unavailable. Please try again shortly.")
        }
        let errors = logs.lines.withLock { $0.filter { $0.0 == .error } }
        #expect(errors.count == 1)
        #expect(errors.first?.2["cause"]?.description == "upstream answered HTTP 502")
        #expect(errors.first?.2["provider"]?.description == "external")
    }
}

import Foundation
import Logging
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// What the server remembers only for speed is forgotten once it is no longer live: memory follows the load, not
/// the run's length.
@Suite("Memory upkeep", .timeLimit(.minutes(2)))
struct CacheExpiryTests {
    @Test("riders gone quiet, expired tokens and callers past their check are forgotten; live ones are kept")
    func forgetsWhatIsOver() async throws {
        try await TestServer.run(.sqlite, configure: MapFixture.monaco) { server in
            var logger = Logger(label: "test")
            logger.logLevel = .critical
            let upkeep = CacheExpiry(
                ingest: server.components.ingest, etas: server.components.etas, verifier: server.components.verifier,
                callerCache: server.components.callerCache, directions: server.components.navigator.provider,
                clock: server.clock, logger: logger)
            // Twenty riders report once, with tokens that last an hour; ten customers sign in.
            for index in 0..<20 {
                let rider = try await server.token(.rider, name: "Rider \(index)")
                try await RiderFixes.post(server, rider: rider, lat: 43.73 + Double(index) * 0.0005)
            }
            for _ in 0..<10 {
                // Signed in (and provisioned) by asking after an order that is not theirs.
                let customer = try await server.token(.customer)
                #expect(try await server.send(.get, "/api/v1/customer/orders/\(UUID())", token: customer).status == 404)
            }
            #expect(server.components.ingest.trackedRiders == 20)
            #expect(server.components.etas.watchedRiders == 20)
            #expect(server.components.verifier.rememberedTokens >= 30)
            #expect(server.components.callerCache.count == 30)

            // A minute on, nothing is over yet.
            server.clock.advance(by: 60)
            let early = upkeep.tidy()
            #expect(early["rider_trails"] == 0 && early["verified_tokens"] == 0 && early["known_callers"] == 0)
            #expect(server.components.ingest.trackedRiders == 20)

            // Two hours on: every rider has gone quiet, every token has expired; one rider is still reporting.
            server.clock.advance(by: 7200)
            let live = try await server.token(.rider, name: "Still riding")
            try await RiderFixes.post(server, rider: live, lat: 43.74)
            let late = upkeep.tidy()
            #expect(late["rider_trails"] == 20)
            #expect(late["eta_watches"] == 20)
            #expect(late["verified_tokens"]! >= 30)
            #expect(server.components.ingest.trackedRiders == 1)
            #expect(server.components.etas.watchedRiders == 1)
            #expect(server.components.verifier.rememberedTokens == 1)
            #expect(server.components.callerCache.count == 1)
        }
    }
}

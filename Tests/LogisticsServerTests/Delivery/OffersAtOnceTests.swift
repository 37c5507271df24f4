import Foundation
import HummingbirdTesting
import Testing

@testable import TestSupport

/// Issue #57, "an offer hidden behind another": a rider offered while another offer is open sees both, and a slow
/// router never holds the offers back (their seconds are running); the distances are left out instead.
@Suite("A rider's open offers, all at once", .timeLimit(.minutes(2)))
struct OffersAtOnceTests {
    @Test("a rider offered while another offer is open sees both", arguments: StoreKind.available)
    func both(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let first = try await DeliveryScenario.ready(server)
            let rider = try await first.onlineRider(name: "Ben Okafor")
            let demo = try #require(try await first.offer(to: [rider.id])[rider.id])
            let second = try await DeliveryScenario.ready(server)
            let dispatcher = try #require(try await second.offer(to: [rider.id])[rider.id])
            let reply = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
            let offers = try #require(reply["offers"] as? [[String: Any]])
            #expect(Set(offers.compactMap { $0["offerId"] as? String }) == [demo, dispatcher])
            #expect(offers.allSatisfy { $0["status"] as? String == "OPEN" && ($0["secondsLeft"] as? Int ?? 0) > 0 })
        }
    }

    @Test("a router that does not answer leaves the distances out and holds nothing back")
    func slowRouter() async throws {
        let fake = ExternalDirectionsTests.fakeProvider()
        try await fake.test(.live) { fakeClient in
            try await TestServer.run(
                .sqlite,
                configure: {
                    $0.routing.provider = .external
                    $0.routing.url = "http://127.0.0.1:\(fakeClient.port ?? 0)/slow"
                }
            ) { server in
                let rider = try await DeliveryScenario.ready(server).onlineRider()
                for _ in 0..<2 {
                    let scenario = try await DeliveryScenario.ready(server)
                    _ = try await scenario.offer(to: [rider.id])
                }
                let started = Date()
                let reply = try await server.send(.get, "/api/v1/rider/offers", token: rider.token)
                let offers = try #require(reply["offers"] as? [[String: Any]])
                #expect(offers.count == 2)
                #expect(offers.allSatisfy { $0["distances"] == nil })
                // Well before the router's own 2-s timeout, let alone one per offer and leg (8 s); the margin is
                // for a CI machine running every suite at once on two cores.
                #expect(Date().timeIntervalSince(started) < 1.9)
            }
        }
    }
}

import Foundation
import LogisticsCore
import LogisticsStore
import RoadRouting
import Testing

@testable import TestSupport

@Suite("ETAs promised on the way, kept next to the arrival", .timeLimit(.minutes(2)))
struct EtaLedgerTests {
    /// A server with the Monaco map, so that ETAs are routed, and no rate limits in the way of the fixes.
    static func onMonaco(_ kind: StoreKind, _ body: @escaping @Sendable (TestServer) async throws -> Void)
        async throws
    {
        try await TestServer.run(
            kind,
            configure: {
                MapFixture.monaco(&$0)
                $0.rateLimits = .off
            }, body)
    }

    @Test(
        "A rider twice as slow as promised: every ETA from pickup on is kept, scored once at the door, and counted",
        arguments: StoreKind.available)
    func slowRide(kind: StoreKind) async throws {
        try await Self.onMonaco(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let route = try await server.send(
                .get, "/api/v1/routes?from=43.7396,7.4276&to=43.7347,7.4240", token: dispatcher)
            let promised = try #require(route["durationS"] as? Double)
            let path = try #require(Polyline.decode(route["geometry"] as? String ?? ""))
            let (scenario, rider, taskId) = try await DeliveryScenario.inTransit(server)
            let orderId = try #require(UUID(uuidString: scenario.orderId))
            let pickedUpAt = server.clock.now()

            // Six fixes along the route, the ride taking twice the promised time.
            let steps = 6
            for step in 1...steps {
                server.clock.advance(by: 2 * promised / Double(steps + 1))
                let point = path[min(path.count - 1, step * path.count / (steps + 1))]
                let fix: [String: Any] = [
                    "lat": point.lat, "lon": point.lon, "accuracyM": 5, "speedMps": 3, "headingDeg": 180,
                    "recordedAt": RFC3339.string(from: server.clock.now()),
                ]
                let posted = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
                #expect(posted.status == 202)
            }
            server.clock.advance(by: 2 * promised / Double(steps + 1))
            let arrivedAt = server.clock.now()
            let eventId = UUID()
            let arrived = try await scenario.status(
                taskId, "ARRIVED_AT_DESTINATION", rider: rider, occurredAt: arrivedAt, eventId: eventId)
            #expect(arrived.status == 200, "\(arrived.text)")

            let etas = try #require(server.components.repository as? any EtaRepository)
            let kept = try await etas.settledEtaPredictions(since: pickedUpAt).filter { $0.orderId == orderId }
            #expect(kept.count == steps + 1, "\(kept)")
            #expect(kept.allSatisfy { $0.arrivedAt.map { abs($0.timeIntervalSince(arrivedAt)) < 0.01 } ?? false })
            // At pickup the promise was the route's time; the ride took twice that, so it was late by about as much.
            let first = try #require(kept.first)
            #expect(abs(first.predictedAt.timeIntervalSince(pickedUpAt)) < 0.01)
            #expect(
                abs(first.remainingSeconds - promised) < promised * 0.05, "\(first.remainingSeconds) vs \(promised)")
            #expect(abs((first.errorSeconds ?? 0) - promised) < promised * 0.1, "\(first)")
            // Later promises are from where the rider was, so each has less to go.
            #expect(zip(kept, kept.dropFirst()).allSatisfy { $0.remainingMetres >= $1.remainingMetres })

            func scored() async throws -> Int {
                let metrics = try await server.send(.get, "/metrics").text
                return metrics.split(separator: "\n")
                    .filter { $0.hasPrefix("eta_absolute_error_seconds_count{") }
                    .compactMap { Int($0.split(separator: " ").last ?? "") }
                    .reduce(0, +)
            }
            #expect(try await scored() == steps + 1)
            // The same tap again (a phone's retry) scores nothing twice.
            let again = try await scenario.status(
                taskId, "ARRIVED_AT_DESTINATION", rider: rider, occurredAt: arrivedAt, eventId: eventId)
            #expect(again.status == 200)
            #expect(try await scored() == steps + 1)
        }
    }

    @Test(
        "a fix within the spacing of the order's last ETA keeps none, the next one past it keeps one",
        arguments: StoreKind.available)
    func spacing(kind: StoreKind) async throws {
        try await Self.onMonaco(kind) { server in
            let (scenario, rider, taskId) = try await DeliveryScenario.inTransit(server)
            let orderId = try #require(UUID(uuidString: scenario.orderId))
            let pickedUpAt = server.clock.now()
            // Seconds after pickup, and where: each fix moves on, so none is a duplicate or thinned out of view.
            for (seconds, lat) in [(2.0, 43.7390), (5.0, 43.7380), (13.0, 43.7370), (15.0, 43.7360)] {
                server.clock.advance(by: pickedUpAt.addingTimeInterval(seconds).timeIntervalSince(server.clock.now()))
                let fix: [String: Any] = [
                    "lat": lat, "lon": 7.4260, "accuracyM": 5, "recordedAt": RFC3339.string(from: server.clock.now()),
                ]
                let posted = try await server.send(
                    .post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
                #expect(posted.status == 202)
            }
            let etas = try #require(server.components.repository as? any EtaRepository)
            let arrived = try await scenario.status(
                taskId, "ARRIVED_AT_DESTINATION", rider: rider, occurredAt: server.clock.now())
            #expect(arrived.status == 200, "\(arrived.text)")
            let kept = try await etas.settledEtaPredictions(since: pickedUpAt).filter { $0.orderId == orderId }
            // At pickup, at 2 s (the first fix reads the rider's orders), at 13 s (10 s after it); not at 5 or 15 s.
            let offsets = kept.map { Int($0.predictedAt.timeIntervalSince(pickedUpAt).rounded()) }
            #expect(offsets == [0, 2, 13], "\(kept)")
        }
    }

    @Test(
        "riders' orders in transit are read together: picked up only, each under its rider",
        arguments: StoreKind.available)
    func ordersInTransit(kind: StoreKind) async throws {
        try await TestServer.run(kind, configure: { $0.rateLimits = .off }) { server in
            let etas = try #require(server.components.repository as? any EtaRepository)
            let scenario = try await DeliveryScenario.ready(server)
            let (riderId, rider, taskId) = try await scenario.assigned()
            let strangers = (0..<1_500).map { _ in UUID() }
            #expect(try await etas.ordersInTransit(riderIds: [riderId] + strangers).isEmpty)
            for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
                #expect(
                    try await scenario.status(taskId, status, rider: rider, lat: 43.7396, lon: 7.4276).status == 200)
            }
            let orders = try await etas.ordersInTransit(riderIds: strangers + [riderId])
            #expect(orders.count == 1)
            let order = try #require(orders[riderId]?.first)
            #expect(orders[riderId]?.count == 1)
            #expect(order.orderId == UUID(uuidString: scenario.orderId))
            #expect(order.destination.lat != 0 && order.destination.lon != 0)
            #expect(try await etas.ordersInTransit(riderIds: []).isEmpty)
        }
    }
}

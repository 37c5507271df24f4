import Foundation
import LogisticsCore
import LogisticsServer
import Testing

/// Batching's starting point: automatic dispatch with batching on Monaco's roads, and a rider who took a first order
/// and is on the way to the store, a few minutes off.
struct TripScenario {
    static let riderSpot = GeoPoint(lat: 43.7347, lon: 7.4206)

    static func configuration(maxDelaySeconds: Double? = 300) -> @Sendable (inout ServerConfiguration) -> Void {
        { configuration in
            MapFixture.monaco(&configuration)
            configuration.dispatch.automatic = .everyVendor
            configuration.dispatch.rounds = 3
            configuration.dispatch.sweepSeconds = 0.2
            configuration.dispatch.batching = maxDelaySeconds.map { TripPlanner.Settings(maxDelaySeconds: $0) }
        }
    }

    let first: DeliveryScenario
    let rider: (id: UUID, token: String)
    let firstTask: String

    static func onTheWay(_ server: TestServer) async throws -> TripScenario {
        let first = try await DeliveryScenario.ready(server, podType: "OTP")
        let rider = try await first.onlineRider(name: "Batcher")
        try await server.database.query(
            "UPDATE riders SET last_lat = ?, last_lon = ?, last_fix_at = ? WHERE id = ?",
            [.double(riderSpot.lat), .double(riderSpot.lon), .date(server.clock.now()), .uuid(rider.id)])
        let offer = try #require(try await openOffer(for: rider.token, on: server), "first order never offered")
        #expect(offer["trip"] == nil)
        let accepted = try await server.send(
            .post, "/api/v1/rider/offers/\(offer["offerId"] as! String)/accept", token: rider.token)
        #expect(accepted.status == 200)
        return TripScenario(first: first, rider: rider, firstTask: try #require(accepted["taskId"] as? String))
    }

    /// The rider's open offer, once there is one.
    static func openOffer(for rider: String, on server: TestServer) async throws -> [String: Any]? {
        try await eventually {
            let reply = try await server.send(.get, "/api/v1/rider/offers", token: rider)
            return (reply["offers"] as? [[String: Any]])?.first
        }
    }
}

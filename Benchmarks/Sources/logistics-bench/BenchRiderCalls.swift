import CitySimulation
import Foundation
import LogisticsCore
import RoadRouting

/// What a simulated rider of the benchmarks asks and tells the server, through the API.
extension BenchClient {
    /// A new rider, signed in with `token(id)`, online at the `index`th of Monaco's places (round the list).
    func riderOnline(_ index: Int, token: (UUID) async throws -> String) async throws -> (
        id: UUID, token: String, position: GeoPoint
    ) {
        let id = UUID()
        let riderToken = try await token(id)
        try await call("online", .PUT, "/api/v1/rider/availability", token: riderToken, json: ["status": "ONLINE"])
        return (id, riderToken, MonacoPlaces.all[index % MonacoPlaces.all.count].location)
    }

    /// The server's road route for the rider's task (to the store, or to the customer once picked up) from where
    /// the rider is, as points.
    func taskRoute(taskId: String, from position: GeoPoint, token: String) async throws -> [GeoPoint] {
        let answer = try await call(
            "route", .GET, "/api/v1/rider/tasks/\(taskId)/route?from=\(position.lat),\(position.lon)", token: token)
        return Polyline.decode(answer["geometry"] as? String ?? "") ?? []
    }

    /// At the door: the code the customer sees, the rider's proof with it, and DELIVERED.
    func deliverWithCode(
        taskId: String, orderId: String, customer: String, rider: String, at door: GeoPoint, now: Date
    ) async throws {
        let view = try await call("code", .GET, "/api/v1/customer/orders/\(orderId)", token: customer)
        try await call(
            "proof", .POST, "/api/v1/rider/tasks/\(taskId)/pod", token: rider,
            json: [
                "type": "OTP", "value": view["deliveryOtp"] as? String ?? "", "capturedAt": RFC3339.string(from: now),
                "location": ["lat": door.lat, "lon": door.lon, "accuracyM": 5],
            ])
        try await call(
            "DELIVERED", .PATCH, "/api/v1/rider/tasks/\(taskId)/status", token: rider,
            json: DeliveryLoad.tap("DELIVERED", at: door, now: now))
    }
}

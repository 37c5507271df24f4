import CitySimulation
import Foundation
import LogisticsCore
import RiderKit
import RoadRouting

/// What the simulated people of the benchmarks' cities ask and tell the server, through RiderKit's typed clients,
/// on the simulation's clock.
struct BenchCalls: Sendable {
    let base: String
    let transport: any RiderTransport

    func rider(_ token: String) -> RiderAPI {
        RiderAPI(baseURL: base, token: { token }, transport: transport, timeout: .seconds(30))
    }

    func office(_ token: String) -> OfficeAPI {
        OfficeAPI(baseURL: base, token: { token }, transport: transport, timeout: .seconds(30))
    }

    func customer(_ token: String) -> CustomerAPI {
        CustomerAPI(baseURL: base, token: { token }, transport: transport, timeout: .seconds(30))
    }

    /// A new rider, signed in with `token(id)`, online at the `index`th of Monaco's places (round the list).
    func riderOnline(_ index: Int, token: (UUID) async throws -> String) async throws -> (
        id: UUID, token: String, position: GeoPoint
    ) {
        let id = UUID()
        let riderToken = try await token(id)
        _ = try await rider(riderToken).setAvailability(online: true)
        return (id, riderToken, MonacoPlaces.all[index % MonacoPlaces.all.count].location)
    }

    /// The server's road route for the rider's task (to the store, or to the customer once picked up) from where
    /// the rider is, as points.
    func taskRoute(taskId: String, from position: GeoPoint, token: String) async throws -> [GeoPoint] {
        let route = try await rider(token).route(taskId: taskId, from: position)
        return Polyline.decode(route.geometry) ?? []
    }

    /// A status change where it happens, at the simulation's time.
    func tap(_ status: TaskStatus, taskId: String, token: String, at place: GeoPoint, now: Date) async throws {
        _ = try await rider(token).updateStatus(
            taskId: taskId,
            StatusUpdate(
                status: status, location: GeoPoint(lat: place.lat, lon: place.lon, accuracyM: 5), occurredAt: now,
                eventId: UUID()))
    }

    /// At the door: the code the customer sees, the rider's proof with it, and DELIVERED.
    func deliverWithCode(
        taskId: String, orderId: String, customer: String, rider riderToken: String, at door: GeoPoint, now: Date
    ) async throws {
        let code = try await self.customer(customer).deliveryCode(orderId: orderId) ?? ""
        try await rider(riderToken).submitDeliveryCode(
            taskId: taskId, code: code, capturedAt: now, location: GeoPoint(lat: door.lat, lon: door.lon, accuracyM: 5),
            actionId: UUID())
        try await tap(.delivered, taskId: taskId, token: riderToken, at: door, now: now)
    }
}

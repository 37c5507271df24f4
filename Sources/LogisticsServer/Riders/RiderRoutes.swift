import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/rider`: the rider's own profile and availability.
struct RiderRoutes {
    let riders: any RiderRepository
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.get("/rider/me", me)
        routes.put("/rider/availability", availability)
    }

    @Sendable func me(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.rider)
        guard let rider = try await riders.rider(id: actor.id) else {
            throw LogisticsError.notFound("rider")
        }
        return try .json(RiderRepresentation(rider))
    }

    @Sendable func availability(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.rider)
        let body = try await RequestBody.decode(AvailabilityRequest.self, from: request)
        let rider = try await riders.setAvailability(
            riderId: actor.id, to: body.status, now: clock.now())
        return try .json(RiderRepresentation(rider))
    }
}

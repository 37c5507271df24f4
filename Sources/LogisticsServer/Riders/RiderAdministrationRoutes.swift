import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/riders`: the fleet for the dispatcher's map, and administration of rider accounts.
struct RiderAdministrationRoutes {
    let riders: any RiderRepository
    let knownCallers: KnownCallers
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.get("/riders", fleet)
        routes.post("/riders/{riderId}/suspend", roles: [.admin]) { request, context in
            try await setSuspended(true, context)
        }
        routes.post("/riders/{riderId}/reinstate", roles: [.admin]) { request, context in
            try await setSuspended(false, context)
        }
    }

    @Sendable func fleet(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let availability = try request.queryValue("availability", as: RiderAvailability.self)
        let limit = try request.queryLimit(default: 1000, range: 1...5000)
        let riders = try await riders.fleet(availability: availability, limit: limit)
        return try .json(["riders": riders.map(FleetRiderRepresentation.init)])
    }

    private func setSuspended(_ suspended: Bool, _ context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let riderId = try context.uuidParameter("riderId")
        let rider = try await riders.setRiderSuspended(
            id: riderId, suspended: suspended, now: clock.now())
        knownCallers.forgetRider(riderId)
        return try .json(RiderRepresentation(rider))
    }
}

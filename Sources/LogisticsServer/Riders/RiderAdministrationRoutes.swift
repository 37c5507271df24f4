import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `/api/v1/riders`: the fleet for the dispatcher's map, a rider's recent trail, and administration of rider accounts.
struct RiderAdministrationRoutes {
    let riders: any RiderRepository
    let ratings: any RatingRepository
    let callerCache: CallerCache
    let sessionEnding: SessionEnding
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.get("/riders", fleet)
        routes.get("/riders/{riderId}/trail", trail)
        routes.get("/riders/{riderId}/ratings", ratingsOfRider)
        routes.post("/riders/{riderId}/suspend", roles: [.admin, .dispatcher]) { request, context in
            try await setSuspended(true, context)
        }
        routes.post("/riders/{riderId}/reinstate", roles: [.admin, .dispatcher]) { request, context in
            try await setSuspended(false, context)
        }
    }

    @Sendable func fleet(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let availability = try request.queryValue("availability", as: RiderAvailability.self)
        let limit = try request.queryLimit(default: 1000, range: 1...5000)
        let dayStart = try FleetDay.start(request.queryDate("dayStart"), now: clock.now())
        let members = try await riders.fleet(availability: availability, limit: limit)
        let workloads = try await riders.fleetWorkloads(deliveredSince: dayStart)
        let now = clock.now()
        return try .json(
            Fleet(
                riders: members.map {
                    FleetRiderRepresentation($0, workload: workloads[$0.rider.id] ?? RiderWorkload(), now: now)
                }))
    }

    /// The fleet, and when the server calls a position stale, so a page need not guess.
    struct Fleet: Encodable {
        var riders: [FleetRiderRepresentation]
        var positionStaleAfterS = Int(RiderPositionFreshness.staleAfterSeconds)
    }

    /// The rider's stored fixes of the last `minutes` (30 unless told), for the trail the dispatcher's map draws.
    @Sendable func trail(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        try request.refuseUnknownQuery(allowed: ["minutes"])
        let riderId = try context.uuidParameter("riderId")
        let minutes = try RiderTrailRepresentation.minutes(request.uri.queryParameters["minutes"].map(String.init))
        guard try await riders.rider(id: riderId) != nil else { throw LogisticsError.notFound("rider") }
        let since = clock.now().addingTimeInterval(-Double(minutes) * 60)
        let fixes = try await riders.riderTrail(
            riderId: riderId, since: since, limit: RiderTrailRepresentation.maximumFixes)
        return try .json(RiderTrailRepresentation(riderId: riderId.lowercased, since: since, fixes: fixes))
    }

    /// How customers rated the rider's deliveries: the count and average of all, and the newest `limit` (20 unless
    /// told) with their orders.
    @Sendable func ratingsOfRider(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        try request.refuseUnknownQuery(allowed: ["limit"])
        let riderId = try context.uuidParameter("riderId")
        let limit = try request.queryLimit(default: 20, range: 1...200)
        guard try await riders.rider(id: riderId) != nil else { throw LogisticsError.notFound("rider") }
        return try .json(RiderRatingsRepresentation(try await ratings.riderRatings(riderId: riderId, recent: limit)))
    }

    /// Dispatchers run the fleet: they suspend and reinstate riders as admins do (`PeopleAccess`).
    private func setSuspended(_ suspended: Bool, _ context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin, .dispatcher)
        guard PeopleAccess.maySuspend(.rider, by: actor.role) else {
            throw PeopleAccess.refusal(.rider, doing: "suspend or reinstate")
        }
        let riderId = try context.uuidParameter("riderId")
        let rider = try await riders.setRiderSuspended(
            id: riderId, suspended: suspended, now: clock.now())
        callerCache.forgetRider(riderId)
        if suspended {
            // Suspension ends the rider's sign-ins: a refresh no longer gives them tokens.
            try await sessionEnding.endAll(of: riderId, reason: "suspended", now: clock.now())
        }
        return try .json(RiderRepresentation(rider))
    }
}

/// The day the fleet list counts deliveries in. The server cannot know the dispatcher's time zone, so the page
/// sends its own midnight; without one, the UTC day. A midnight outside the last 24 hours (a computer's clock
/// ahead of the server's, a page left open overnight) is brought within them rather than refused.
enum FleetDay {
    static func start(_ asked: Date?, now: Date) -> Date {
        guard let asked else {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC")!
            return calendar.startOfDay(for: now)
        }
        return min(max(asked, now.addingTimeInterval(-86_400)), now)
    }
}

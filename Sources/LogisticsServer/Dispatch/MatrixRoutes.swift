import Foundation
import Hummingbird
import LogisticsCore
import RoadRouting
import Threads

/// `POST /api/v1/matrix`: road durations and distances between every source and destination, in the sense of
/// OSRM's table service, for dispatchers' own planning tools.
struct MatrixRoutes {
    let navigator: Navigator
    let settings: DispatchSettings
    let maxSnapDistanceM: Double

    func register(in routes: inout RouteTable) {
        routes.post("/matrix", roles: [.dispatcher, .admin], replay: .rerun, matrix)
    }

    @Sendable func matrix(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(MatrixRequest.self, from: request)
        let (sources, destinations, profile) = try body.validated(maxLocations: settings.matrixMaxLocations)
        let navigator = self.navigator
        let table = try await OwnThread.run { try navigator.table(from: sources, to: destinations, profile: profile) }
        let unroutable =
            table.unroutableSources.map { "sources[\($0)]" }
            + (body.destinations == nil ? [] : table.unroutableDestinations.map { "destinations[\($0)]" })
        if !unroutable.isEmpty {
            throw LogisticsError(
                .locationNotRoutable,
                "\(unroutable.prefix(5).joined(separator: ", ")) \(unroutable.count == 1 ? "is" : "are") more than "
                    + "\(Int(maxSnapDistanceM)) m from any road a rider can use",
                extras: ["fields": .strings(unroutable)])
        }
        return try .json(MatrixAnswer(durations: table.durationsS, distances: table.distancesM))
    }
}

/// `{sources: [{lat, lon}], destinations?: [{lat, lon}], profile?}`; without destinations, sources to sources.
struct MatrixRequest: Decodable {
    var sources: [GeoPoint]
    var destinations: [GeoPoint]?
    var profile: String?

    func validated(maxLocations: Int) throws -> ([GeoPoint], [GeoPoint], RoutingProfile.Name?) {
        var errors: [FieldError] = []
        for (field, points) in [("sources", sources), ("destinations", destinations)] {
            guard let points else { continue }
            if points.isEmpty || points.count > maxLocations {
                errors.append(FieldError(field: field, message: "must list 1 to \(maxLocations) positions"))
            }
            for (index, point) in points.prefix(maxLocations).enumerated() {
                errors += point.validationErrors(field: "\(field)[\(index)]")
            }
        }
        let name = NavigationRoutes.profile(profile, errors: &errors)
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        return (sources, destinations ?? sources, name)
    }
}

struct MatrixAnswer: Encodable {
    /// Seconds, null where no legal road path joins the two.
    var durations: [[Double?]]
    /// Metres along the fastest path, null likewise.
    var distances: [[Double?]]
}

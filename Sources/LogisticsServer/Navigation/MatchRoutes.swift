import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore
import RoadRouting
import Threads

/// `POST /api/v1/match`: a GPS trace matched to the roads driven (hidden Markov model, Newson & Krumm), for
/// dispatchers looking back at a delivery and for tools checking traces; and `GET /api/v1/orders/{orderId}/path`,
/// the same for the fixes stored while riders worked on an order, which the dispatcher's timeline draws.
struct MatchRoutes {
    let navigator: Navigator
    let orders: any OrderRepository
    let locations: any LocationRepository

    /// A long shift's trace at one fix every few seconds, and no more: the search per fix is bounded, the fixes are not.
    static let maximumFixes = 5_000
    static let bodyLimit = 1024 * 1024

    func register(in routes: inout RouteTable) {
        routes.post("/match", roles: [.dispatcher, .admin], bodyLimit: Self.bodyLimit, replay: .rerun, match)
        routes.get("/orders/{orderId}/path", orderPath)
    }

    @Sendable func match(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let body = try await RequestBody.decode(MatchRequest.self, from: request, limit: Self.bodyLimit)
        let (trace, profile) = try body.validated(maximumFixes: Self.maximumFixes)
        let navigator = self.navigator
        let match = try await OwnThread.run { try navigator.match(trace, profile: profile) }
        return try .json(MatchAnswer(match))
    }

    /// An order with no stored fix yet (not picked up, or a rider without GPS) answers an empty path, not an error.
    @Sendable func orderPath(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.dispatcher, .admin)
        let order = try await OrderLookup(orders: orders).visibleOrder(context, allowed: OrderAccess.canView)
        let trail = try await locations.orderTrail(orderId: order.id, limit: Self.maximumFixes)
        let fixes = trail.map { MapMatcher.Fix(point: $0.point, recordedAt: $0.recordedAt) }
        let navigator = self.navigator
        let match = try await OwnThread.run { try navigator.match(fixes, profile: nil) }
        return try .json(OrderPathAnswer(orderId: order.id.lowercased, fixCount: fixes.count, path: MatchAnswer(match)))
    }
}

/// The order's matched path, with how many stored fixes it came from.
struct OrderPathAnswer: Encodable {
    var orderId: String
    var fixCount: Int
    var path: MatchAnswer

    enum CodingKeys: String, CodingKey { case orderId, fixCount }

    func encode(to encoder: any Encoder) throws {
        try path.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(orderId, forKey: .orderId)
        try container.encode(fixCount, forKey: .fixCount)
    }
}

/// `{trace: [{lat, lon, recordedAt, accuracyM?}], profile?}`.
struct MatchRequest: Decodable {
    struct TracePoint: Decodable {
        var lat: Double
        var lon: Double
        var recordedAt: Date
        var accuracyM: Double?
    }

    var trace: [TracePoint]
    var profile: String?

    func validated(maximumFixes: Int) throws -> ([MapMatcher.Fix], RoutingProfile.Name?) {
        var errors: [FieldError] = []
        if trace.isEmpty || trace.count > maximumFixes {
            errors.append(FieldError(field: "trace", message: "must list 1 to \(maximumFixes) fixes"))
        }
        let fixes = trace.prefix(maximumFixes).map {
            MapMatcher.Fix(
                point: GeoPoint(lat: $0.lat, lon: $0.lon, accuracyM: $0.accuracyM), recordedAt: $0.recordedAt)
        }
        for (index, fix) in fixes.enumerated() {
            errors += fix.point.validationErrors(field: "trace[\(index)]")
        }
        let name = NavigationRoutes.profile(profile, errors: &errors)
        guard errors.isEmpty else { throw LogisticsError.validation(errors) }
        return (fixes, name)
    }
}

/// The matched path (every stretch joined, as a route's polyline6 `geometry`), each fix's place on it or null, the
/// stretches one by one, and the runs of fixes nothing was matched to.
struct MatchAnswer: Encodable {
    struct Point: Encodable {
        var lat: Double
        var lon: Double
        /// How far the fix was from where it was matched.
        var distanceM: Double
    }

    struct Stretch: Encodable {
        /// First and last fix of the stretch, as indices into the trace as sent.
        var fromIndex: Int
        var toIndex: Int
        var fixCount: Int
        var distanceM: Double
        var geometry: String
    }

    struct Run: Encodable {
        var fromIndex: Int
        var toIndex: Int
        var fixCount: Int
    }

    var geometry: String
    var points: [Point?]
    var stretches: [Stretch]
    var unmatched: [Run]

    init(_ match: MapMatcher.Match) {
        geometry = Polyline.encode(match.stretches.flatMap(\.coordinates))
        points = match.points.map { matched in
            matched.map {
                Point(
                    lat: Self.rounded($0.point.lat), lon: Self.rounded($0.point.lon),
                    distanceM: Self.metres($0.distanceM))
            }
        }
        stretches = match.stretches.map { stretch in
            let length = zip(stretch.coordinates, stretch.coordinates.dropFirst()).reduce(0) {
                $0 + $1.0.distanceM(to: $1.1)
            }
            return Stretch(
                fromIndex: stretch.fixes.first ?? 0, toIndex: stretch.fixes.last ?? 0, fixCount: stretch.fixes.count,
                distanceM: Self.metres(length), geometry: Polyline.encode(stretch.coordinates))
        }
        unmatched = match.unmatched.map { Run(fromIndex: $0.first!, toIndex: $0.last!, fixCount: $0.count) }
    }

    private static func rounded(_ degrees: Double) -> Double { (degrees * 1e6).rounded() / 1e6 }
    private static func metres(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}

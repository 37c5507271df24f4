import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsStore
import NIOCore
import RoadRouting

/// An OSRM- or Mapbox-style directions service (`GET {base}/route/v1/{profile}/{lon},{lat};{lon},{lat}`), mapped to
/// our route shape. Any failure (timeout, refused connection, error status, unreadable answer) is a provider
/// failure; the caller answers 503 NAVIGATION_UNAVAILABLE.
struct ExternalDirections: DirectionsProvider {
    let baseURL: String
    let key: String?
    let client: HTTPClient
    let timeout: TimeAmount

    var name: String { "external" }
    var readiness: String { "external provider \(baseURL)" }

    func route(_ request: RouteRequest, profile: RoutingProfile.Name?, now: Date) async throws -> Route {
        var url = "\(baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL)/route/v1/driving/"
        url += "\(request.from.lon),\(request.from.lat);\(request.to.lon),\(request.to.lat)"
        url += "?overview=full&geometries=polyline6&steps=true&voice_instructions=true&annotations=congestion"
        if let key { url += "&access_token=\(key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
        let body: ByteBuffer
        let status: UInt
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: timeout)
            status = response.status.code
            body = try await response.body.collect(upTo: 8 * 1024 * 1024)
        } catch {
            throw RoutingError.providerUnavailable("request to \(baseURL) failed: \(error)")
        }
        let answer: OSRMAnswer
        do {
            answer = try JSONDecoder().decode(OSRMAnswer.self, from: body)
        } catch {
            throw RoutingError.providerUnavailable("HTTP \(status) with an unreadable body from \(baseURL)")
        }
        switch answer.code {
        case "Ok": break
        case "NoRoute": throw RoutingError.noRoute
        case "NoSegment": throw RoutingError.notNearRoad(field: "from", point: request.from, limitM: 0)
        default: throw RoutingError.providerUnavailable("HTTP \(status), code \(answer.code) from \(baseURL)")
        }
        guard status == 200, let route = answer.routes?.first else {
            throw RoutingError.providerUnavailable("HTTP \(status) without a route from \(baseURL)")
        }
        return route.converted(waypoints: answer.waypoints ?? [], now: now)
    }

    func observe(_ fixes: [LocationFix], riderId: UUID) {}
    /// Ranking happens inside a database transaction; an HTTP round trip per rider has no place there.
    var roadTravelTime: RoadTravelTime? { nil }
}

/// The subset of the OSRM/Mapbox response we read.
private struct OSRMAnswer: Decodable {
    var code: String
    var routes: [OSRMRoute]?
    var waypoints: [OSRMWaypoint]?
}

private struct OSRMWaypoint: Decodable {
    var location: [Double]
    var name: String?
    var distance: Double?
}

private struct OSRMRoute: Decodable {
    var distance: Double
    var duration: Double
    var geometry: String
    var legs: [OSRMLeg]

    func converted(waypoints: [OSRMWaypoint], now: Date) -> Route {
        var pointIndex = 0
        let legs = legs.map { leg in
            RouteLeg(
                distanceM: leg.distance, durationS: leg.duration,
                steps: leg.steps.map { step in
                    let points = step.geometry.flatMap { Polyline.decode($0) }?.count ?? 1
                    let start = pointIndex
                    pointIndex += max(0, points - 1)
                    return step.converted(geometryStart: start, geometryEnd: pointIndex)
                })
        }
        return Route(
            distanceM: distance, durationS: duration, etaAt: RFC3339.string(from: now.addingTimeInterval(duration)),
            geometry: geometry, legs: legs,
            congestion: self.legs.flatMap { $0.annotation?.congestion ?? [] }.map { $0.uppercased() },
            provider: "external", dataAgeS: nil,
            waypoints: waypoints.map {
                Waypoint(
                    location: GeoPoint(lonLat: $0.location),
                    name: $0.name ?? "", snapDistanceM: $0.distance ?? 0)
            })
    }
}

private struct OSRMLeg: Decodable {
    var distance: Double
    var duration: Double
    var steps: [OSRMStep]
    var annotation: Annotation?

    struct Annotation: Decodable {
        var congestion: [String]?
    }
}

private struct OSRMStep: Decodable {
    var distance: Double
    var duration: Double
    var name: String?
    var geometry: String?
    var maneuver: OSRMManeuver
    var voiceInstructions: [OSRMVoice]?

    struct OSRMManeuver: Decodable {
        var type: String
        var modifier: String?
        var location: [Double]
        var bearingAfter: Double?
        var exit: Int?
        var instruction: String?

        enum CodingKeys: String, CodingKey {
            case type, modifier, location, exit, instruction
            case bearingAfter = "bearing_after"
        }
    }

    struct OSRMVoice: Decodable {
        var distanceAlongGeometry: Double
        var announcement: String
    }

    func converted(geometryStart: Int, geometryEnd: Int) -> RouteStep {
        let name = name ?? ""
        let bearing = maneuver.bearingAfter ?? 0
        return RouteStep(
            maneuver: Maneuver(
                type: maneuver.type, modifier: maneuver.modifier,
                location: GeoPoint(lonLat: maneuver.location),
                bearingAfter: Int(bearing), exit: maneuver.exit),
            name: name, distanceM: distance, durationS: duration,
            instruction: maneuver.instruction
                ?? InstructionText.instruction(
                    type: maneuver.type, modifier: maneuver.modifier, name: name, exit: maneuver.exit,
                    bearingAfter: bearing),
            // Mapbox counts the distance left to the maneuver; we say how far into the step to speak.
            voiceInstructions: (voiceInstructions ?? []).map {
                VoiceInstruction(
                    distanceAlongStepM: max(0, distance - $0.distanceAlongGeometry), announcement: $0.announcement)
            },
            geometryStart: geometryStart, geometryEnd: geometryEnd)
    }
}

extension GeoPoint {
    /// OSRM and Mapbox write positions as `[lon, lat]`; a short array reads as zeros rather than failing the route.
    fileprivate init(lonLat: [Double]) {
        self.init(lat: lonLat.count > 1 ? lonLat[1] : 0, lon: lonLat.first ?? 0)
    }
}

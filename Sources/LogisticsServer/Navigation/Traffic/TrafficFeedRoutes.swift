import Foundation
import Hummingbird
import LogisticsCore
import Prometheus
import RoadRouting

/// `POST /api/v1/traffic/speeds` (admin): an external traffic feed's speeds per road segment, taken as live traffic
/// like the fleet's own. A feed is judged entry by entry: an unknown segment or an impossible value refuses that
/// entry, says why, and is counted; the rest are applied.
struct TrafficFeedRoutes {
    let navigator: Navigator
    let registry: PrometheusCollectorRegistry
    let clock: any WallClock
    /// How old a reported speed may be: older ones would expire as they arrive.
    let trafficExpiry: TimeInterval

    static let maximumEntries = 10_000
    static let bodyLimit = 2 * 1024 * 1024
    /// Faster than anything on a road: a sensor's or a feed's error, not traffic.
    static let maximumKmh = 250.0
    /// Feeds' clocks may run a little ahead of ours.
    static let clockSkew: TimeInterval = 60

    enum Refusal: String, Encodable {
        case incomplete = "INCOMPLETE"
        case impossibleSpeed = "IMPOSSIBLE_SPEED"
        case tooOld = "TOO_OLD"
        case inTheFuture = "IN_THE_FUTURE"
        case unknownSegment = "UNKNOWN_SEGMENT"
    }

    /// `{speeds: [{fromNode, toNode, speedKmh, observedAt?}]}`; a missing `observedAt` means now.
    struct Feed: Decodable {
        struct Entry: Decodable {
            var fromNode: Int64?
            var toNode: Int64?
            var speedKmh: Double?
            var observedAt: Date?
        }

        var speeds: [Entry]
    }

    struct Answer: Encodable {
        struct Refused: Encodable, Error {
            var index: Int
            var reason: Refusal
            var detail: String
        }

        var applied: Int
        var refused: [Refused]
    }

    func register(in routes: inout RouteTable) {
        routes.post("/traffic/speeds", roles: [.admin], bodyLimit: Self.bodyLimit, replay: .rerun, feed)
    }

    @Sendable func feed(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let feed = try await RequestBody.decode(Feed.self, from: request, limit: Self.bodyLimit)
        guard feed.speeds.count <= Self.maximumEntries else {
            throw LogisticsError.validation(field: "speeds", "must list at most \(Self.maximumEntries) entries")
        }
        let now = clock.now()
        var refused: [Answer.Refused] = []
        var reports: [(index: Int, report: SpeedReport)] = []
        for (index, entry) in feed.speeds.enumerated() {
            switch judge(entry, index: index, now: now) {
            case .success(let report): reports.append((index, report))
            case .failure(let refusal): refused.append(refusal)
            }
        }
        let found = try navigator.apply(reports.map(\.report))
        for (offset, wasFound) in found.enumerated() where !wasFound {
            let report = reports[offset].report
            refused.append(
                Answer.Refused(
                    index: reports[offset].index, reason: .unknownSegment,
                    detail: "no road on the map goes from OSM node \(report.fromOSMNode) to \(report.toOSMNode)"))
        }
        let applied = found.filter { $0 }.count
        count(applied: applied, refused: refused)
        return try .json(Answer(applied: applied, refused: refused.sorted { $0.index < $1.index }))
    }

    private func judge(_ entry: Feed.Entry, index: Int, now: Date) -> Result<SpeedReport, Answer.Refused> {
        func refuse(_ reason: Refusal, _ detail: String) -> Result<SpeedReport, Answer.Refused> {
            .failure(Answer.Refused(index: index, reason: reason, detail: detail))
        }
        guard let from = entry.fromNode, let to = entry.toNode, let kmh = entry.speedKmh else {
            return refuse(.incomplete, "fromNode, toNode and speedKmh are required")
        }
        guard kmh.isFinite, kmh >= 0, kmh <= Self.maximumKmh else {
            return refuse(.impossibleSpeed, "speedKmh must be 0 to \(Int(Self.maximumKmh)) km/h")
        }
        let observedAt = entry.observedAt ?? now
        if observedAt > now.addingTimeInterval(Self.clockSkew) {
            return refuse(.inTheFuture, "observedAt is later than now")
        }
        if now.timeIntervalSince(observedAt) >= trafficExpiry {
            return refuse(.tooOld, "observedAt is more than \(Int(trafficExpiry)) s ago: already expired")
        }
        return .success(
            SpeedReport(fromOSMNode: from, toOSMNode: to, metresPerSecond: kmh / 3.6, observedAt: min(observedAt, now)))
    }

    private func count(applied: Int, refused: [Answer.Refused]) {
        if applied > 0 {
            registry.counter(.trafficFeedEntries, labels: [("outcome", "applied")]).increment(by: Int64(applied))
        }
        for (reason, entries) in Dictionary(grouping: refused, by: \.reason) {
            registry.counter(.trafficFeedEntries, labels: [("outcome", reason.rawValue)]).increment(
                by: Int64(entries.count))
        }
    }
}

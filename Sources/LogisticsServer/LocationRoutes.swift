import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `POST /api/v1/rider/locations`: batches of fixes from the rider's phone.
struct LocationRoutes {
    let services: LogisticsServices

    func register(in routes: inout RouteTable) {
        routes.post("/rider/locations", bodyLimit: Self.bodyLimit, ingest)
    }

    /// 500 fixes of ~150 bytes each, with room to spare.
    static let bodyLimit = 256 * 1024

    struct Batch: Decodable {
        var fixes: [LocationFix]
    }

    struct Receipt: Encodable {
        var accepted: Int
        var rejected: Int
        var rejections: [Rejection]

        struct Rejection: Encodable {
            var index: Int
            var reason: String
        }
    }

    @Sendable func ingest(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let batch = try await RequestBody.decode(Batch.self, from: request, limit: Self.bodyLimit)
        guard (1...LocationFix.maximumBatch).contains(batch.fixes.count) else {
            throw LogisticsError.validation(field: "fixes", "must hold 1 to \(LocationFix.maximumBatch) fixes")
        }
        let now = services.clock.now()
        var accepted: [LocationFix] = []
        var rejections: [Receipt.Rejection] = []
        for (index, fix) in batch.fixes.enumerated() {
            if let reason = fix.rejection(now: now) {
                rejections.append(.init(index: index, reason: reason))
            } else {
                accepted.append(fix)
            }
        }
        let orderId = try await services.locations.recordFixes(accepted, riderId: rider.id, now: now)
        if let orderId {
            for fix in accepted.sorted(by: { $0.recordedAt < $1.recordedAt }) {
                services.tracking.record(
                    orderId: orderId,
                    fix: TrackedPosition(
                        lat: fix.lat, lon: fix.lon, accuracyM: fix.accuracyM, recordedAt: fix.recordedAt))
            }
        }
        services.navigator.provider.observe(accepted)
        return try .json(
            Receipt(accepted: accepted.count, rejected: rejections.count, rejections: rejections), status: .accepted)
    }
}

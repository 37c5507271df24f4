import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `POST /api/v1/rider/locations`: batches of fixes from the rider's phone.
struct LocationRoutes {
    let ingest: LocationIngest
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.post("/rider/locations", roles: [.rider], bodyLimit: Self.bodyLimit, ingest)
    }

    /// 500 fixes of ~150 bytes each, with room to spare.
    static let bodyLimit = 256 * 1024

    struct Batch: Decodable {
        var fixes: [LocationFix]
    }

    @Sendable func ingest(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let rider = try context.caller(.rider)
        let batch = try await RequestBody.decode(Batch.self, from: request, limit: Self.bodyLimit) { body in
            FixBatchReader.read(body)?.fixes.map(Batch.init)
        }
        let receipt = try await ingest.ingest(batch.fixes, riderId: rider.id, now: clock.now())
        return try .json(receipt, status: .accepted)
    }
}

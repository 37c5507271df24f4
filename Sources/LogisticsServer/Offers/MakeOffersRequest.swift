import Foundation
import LogisticsCore
import LogisticsStore

/// `POST /api/v1/orders/{orderId}/offers`: either `riderIds`, or `strategy: nearest` with a `count`.
struct MakeOffersRequest: Decodable {
    var riderIds: [UUID]?
    var strategy: String?
    var count: Int?

    func targets(roadTime: RoadTravelTime?) throws -> OfferTargets {
        switch (riderIds, strategy) {
        case (let ids?, nil):
            guard (1...50).contains(ids.count) else {
                throw LogisticsError.validation(field: "riderIds", "must list 1 to 50 riders")
            }
            return .riders(ids)
        case (nil, "nearest"?):
            let count = count ?? 3
            guard (1...20).contains(count) else { throw LogisticsError.validation(field: "count", "must be 1 to 20") }
            return .nearest(count: count, roadTime: roadTime)
        case (nil, let other?):
            throw LogisticsError.validation(field: "strategy", "must be \"nearest\", not \"\(other.prefix(40))\"")
        default:
            throw LogisticsError.validation(field: "riderIds", "give either riderIds or strategy, not both or neither")
        }
    }
}

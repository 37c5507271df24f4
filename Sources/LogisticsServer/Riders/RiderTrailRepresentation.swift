import Foundation
import LogisticsCore
import LogisticsStore

/// `GET /api/v1/riders/{riderId}/trail`: where a rider went lately, as the fixes the server kept (one per 10 s or
/// 25 m), oldest first.
struct RiderTrailRepresentation: Encodable {
    var riderId: String
    var since: Date
    var fixes: [LocationFix]

    /// Four hours of a rider's kept fixes at most: one every 10 s is 1,440, a fast rider's one per 25 m a few more.
    static let maximumFixes = 5000

    /// `?minutes=`: 1 to 240, 30 unless told (the dispatcher's rider card shows the last half hour).
    static func minutes(_ raw: String?) throws -> Int {
        guard let raw else { return 30 }
        guard let minutes = Int(raw), (1...240).contains(minutes) else {
            throw LogisticsError.validation(field: "minutes", "must be a whole number from 1 to 240")
        }
        return minutes
    }
}

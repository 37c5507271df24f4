import Foundation
import LogisticsCore
import LogisticsStore

struct AvailabilityRequest: Decodable {
    var status: RiderAvailability
}

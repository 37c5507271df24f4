import Foundation
import LogisticsCore

struct AvailabilityRequest: Decodable {
    var status: RiderAvailability
}

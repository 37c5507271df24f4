import Foundation
import LogisticsCore

/// How offers and a rider's task behave.
public struct DeliverySettings: Sendable, Equatable {
    public var offerTTLSeconds = 60
    /// How long an issue must wait before the rider may mark a delivery FAILED.
    public var failedWaitSeconds = 600
    /// ARRIVED_AT_DESTINATION farther than this from the customer needs confirming.
    public var geofenceRadiusM: Double = 500
    /// A call-masking number riders dial to reach the customer; without it they see only the masked phone.
    public var riderContactNumber: String?

    public init() {}

    /// What `DeliveryRules` checks a status change against.
    var rules: DeliveryRules.Settings {
        DeliveryRules.Settings(geofenceRadiusM: geofenceRadiusM, failedWaitSeconds: TimeInterval(failedWaitSeconds))
    }

    static var environment: [EnvironmentSetting<Self>] {
        [
            .whole("LOGISTICS_OFFER_TTL_SECONDS", \.offerTTLSeconds, in: 1...86_400),
            .whole("LOGISTICS_GEOFENCE_RADIUS_M", \.geofenceRadiusM, in: 10...100_000),
            .whole("LOGISTICS_FAILED_WAIT_SECONDS", \.failedWaitSeconds, in: 0...86_400),
            .custom("LOGISTICS_RIDER_CONTACT_NUMBER") { settings, number in
                guard number.first == "+", number.dropFirst().allSatisfy({ $0.isNumber || $0 == " " }),
                    number.filter(\.isNumber).count >= 6
                else {
                    throw ConfigurationError("LOGISTICS_RIDER_CONTACT_NUMBER must be a number like +377 99 00 00 00")
                }
                settings.riderContactNumber = number
            },
        ]
    }
}

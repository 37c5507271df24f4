import Foundation
import LogisticsCore

/// How sign-in by phone behaves.
public struct SignInSettings: Sendable, Equatable {
    /// `LOGISTICS_SIGN_IN=off`: only tokens minted elsewhere (an identity provider, `logistics token`).
    public var enabled = true
    public var accessTokenMinutes = 15
    public var refreshTokenDays = 30
    /// Code requests from one address (its /64 for IPv6) per 10 minutes, whatever the phones.
    public var codeRequestsPerAddress = 20
    /// `LOGISTICS_PHONE_EXAMPLE`: a phone number of the city, as people write it (`+377 99 12 34 56`), shown by the
    /// dispatcher's and the store's sign-in as the example to follow; none: they ask for the country code without
    /// an example (an example from another country misleads more than it helps). The demo sets Monaco's.
    public var phoneExample: String?

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .custom("LOGISTICS_SIGN_IN") { settings, value in
                guard ["on", "off"].contains(value) else {
                    throw ConfigurationError("LOGISTICS_SIGN_IN must be on or off, not \(value)")
                }
                settings.enabled = value == "on"
            },
            .custom("LOGISTICS_ACCESS_TOKEN_MINUTES") {
                $0.accessTokenMinutes = try wholeNumber($1, name: "LOGISTICS_ACCESS_TOKEN_MINUTES", in: 1...1440)
            },
            .custom("LOGISTICS_REFRESH_TOKEN_DAYS") {
                $0.refreshTokenDays = try wholeNumber($1, name: "LOGISTICS_REFRESH_TOKEN_DAYS", in: 1...365)
            },
            .custom("LOGISTICS_PHONE_EXAMPLE") { settings, value in
                guard PhoneNumber.textable(value) != nil, value.count <= 24 else {
                    throw ConfigurationError(
                        "LOGISTICS_PHONE_EXAMPLE must be a phone number with its country code, like +377 99 12 34 56")
                }
                settings.phoneExample = value
            },
            .custom("LOGISTICS_SIGN_IN_CODES_PER_ADDRESS") {
                $0.codeRequestsPerAddress = try wholeNumber(
                    $1, name: "LOGISTICS_SIGN_IN_CODES_PER_ADDRESS", in: 1...100_000)
            },
        ]
    }
}

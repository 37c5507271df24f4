import Foundation

/// How tokens are signed and verified, and the key delivery codes are made with.
public struct TokenSettings: Sendable, Equatable {
    public var jwtSecret: String?
    /// Key for delivery codes, tracking links and sealed secrets; defaults to the JWT secret.
    public var otpSecret: String?
    /// A PEM public key (RS256/ES256) or a JWKS JSON file for production tokens.
    public var publicKeyFile: String?
    /// The algorithm of the public key file's keys that name none (a JWKS key without `alg`, or PS256 for an RSA
    /// PEM); a key is never verified with an algorithm a token's header picks.
    public var publicKeyAlgorithm: String?
    public var issuer = "rider-logistics"
    public var audience = "rider-logistics-api"

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .text("LOGISTICS_JWT_SECRET", \.jwtSecret),
            .text("LOGISTICS_OTP_SECRET", \.otpSecret),
            .text("LOGISTICS_JWT_PUBLIC_KEY_FILE", \.publicKeyFile, keepEmpty: true),
            .custom("LOGISTICS_JWT_ALGORITHM") { settings, algorithm in
                guard TokenKeys.publicKeyAlgorithms.contains(algorithm) else {
                    throw ConfigurationError(
                        "LOGISTICS_JWT_ALGORITHM must be one of "
                            + "\(TokenKeys.publicKeyAlgorithms.sorted().joined(separator: ", ")), not \(algorithm)")
                }
                settings.publicKeyAlgorithm = algorithm
            },
        ]
    }
}

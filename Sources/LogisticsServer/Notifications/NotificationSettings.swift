import Foundation

/// Push providers (FCM, APNs) and how pushes and webhooks are retried.
public struct NotificationSettings: Sendable, Equatable {
    /// A Google service-account JSON file; enables pushes to Android and web devices through FCM.
    public var fcmServiceAccountFile: String?
    public var fcmBaseURL = "https://fcm.googleapis.com"
    /// An APNs .p8 key with its key id, team id and the app's bundle id (topic); enables pushes to iPhones.
    public var apnsKeyFile: String?
    public var apnsKeyId: String?
    public var apnsTeamId: String?
    public var apnsTopic: String?
    public var apnsBaseURL = "https://api.push.apple.com"
    /// PEM certificates to trust for APNs instead of the system's roots (an egress proxy that terminates TLS).
    public var apnsCAFile: String?
    /// The first webhook retry waits up to this long; later ones double, up to an hour apart.
    public var webhookRetryBaseSeconds: Double = 5
    /// Webhooks are retried this long, then dead-lettered.
    public var webhookRetryBudgetSeconds = 24 * 3600
    /// Pushes are retried this long, then dropped (a late "your rider has arrived" is noise).
    public var pushRetryBudgetSeconds = 3600

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .text("LOGISTICS_FCM_SERVICE_ACCOUNT_FILE", \.fcmServiceAccountFile),
            .text("LOGISTICS_FCM_BASE_URL", \.fcmBaseURL),
            .text("LOGISTICS_APNS_KEY_FILE", \.apnsKeyFile),
            .text("LOGISTICS_APNS_KEY_ID", \.apnsKeyId),
            .text("LOGISTICS_APNS_TEAM_ID", \.apnsTeamId),
            .text("LOGISTICS_APNS_TOPIC", \.apnsTopic),
            .text("LOGISTICS_APNS_BASE_URL", \.apnsBaseURL),
            .text("LOGISTICS_APNS_CA_FILE", \.apnsCAFile),
            EnvironmentSetting(name: "LOGISTICS_WEBHOOK_RETRY_BASE_SECONDS") { settings, base in
                guard let seconds = Double(base), seconds > 0, seconds <= 3600 else {
                    throw ConfigurationError(
                        "LOGISTICS_WEBHOOK_RETRY_BASE_SECONDS must be a number of seconds in (0, 3600]")
                }
                settings.webhookRetryBaseSeconds = seconds
            },
            .whole("LOGISTICS_WEBHOOK_RETRY_BUDGET_SECONDS", \.webhookRetryBudgetSeconds, in: 1...(7 * 86_400)),
            .whole("LOGISTICS_PUSH_RETRY_BUDGET_SECONDS", \.pushRetryBudgetSeconds, in: 1...86_400),
        ]
    }
}

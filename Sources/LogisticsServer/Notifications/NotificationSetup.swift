import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore

/// The providers the configuration enables, and how each one retries.
enum NotificationSetup {
    /// How many sends each provider may have in flight per instance.
    static let pushConcurrency = 16
    static let webhookConcurrency = 8

    static func senders(_ configuration: ServerConfiguration, clock: any WallClock) async throws
        -> [NotificationChannel: any NotificationSender]
    {
        let http = HTTPClient.shared
        var senders: [NotificationChannel: any NotificationSender] = [
            .webhook: WebhookSender(concurrency: webhookConcurrency, http: http, clock: clock)
        ]
        if let file = configuration.fcmServiceAccountFile {
            let account = try GoogleServiceAccount.load(path: file)
            senders[.fcm] = FCMSender(
                concurrency: pushConcurrency, baseURL: trimmed(configuration.fcmBaseURL), projectId: account.projectId,
                tokens: try await GoogleAccessTokens(account: account, http: http, clock: clock), http: http,
                clock: clock)
        }
        if let file = configuration.apnsKeyFile {
            guard let keyId = configuration.apnsKeyId, let teamId = configuration.apnsTeamId,
                let topic = configuration.apnsTopic
            else {
                throw ConfigurationError(
                    "LOGISTICS_APNS_KEY_FILE needs LOGISTICS_APNS_KEY_ID, LOGISTICS_APNS_TEAM_ID and LOGISTICS_APNS_TOPIC"
                )
            }
            senders[.apns] = APNsSender(
                concurrency: pushConcurrency, baseURL: trimmed(configuration.apnsBaseURL), topic: topic,
                tokens: try await APNsProviderTokens(keyFile: file, keyId: keyId, teamId: teamId, clock: clock),
                http: http, clock: clock)
        }
        return senders
    }

    static func policies(_ configuration: ServerConfiguration) -> [NotificationChannel: RetryPolicy] {
        let push = RetryPolicy(
            base: RetryPolicy.pushes.base, cap: RetryPolicy.pushes.cap,
            budget: TimeInterval(configuration.pushRetryBudgetSeconds))
        return [
            .fcm: push, .apns: push,
            .webhook: RetryPolicy(
                base: configuration.webhookRetryBaseSeconds, cap: RetryPolicy.webhooks.cap,
                budget: TimeInterval(configuration.webhookRetryBudgetSeconds)),
        ]
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}

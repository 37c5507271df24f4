import AsyncHTTPClient
import Foundation
import Logging
import LogisticsCore
import NIOSSL
import ServiceLifecycle

/// The providers the configuration enables, and how each one retries.
enum NotificationSetup {
    /// How many sends each provider may have in flight per instance.
    static let pushConcurrency = 16
    static let webhookConcurrency = 8

    /// The senders, and the services that must run beside them (an HTTP client of their own to shut down).
    static func senders(
        _ configuration: ServerConfiguration, twilioAuthToken: Redacted?, composer: CustomerTextComposer,
        clock: any WallClock, sealer: SecretSealer, logger: Logger
    ) async throws
        -> (senders: [NotificationChannel: any NotificationSender], services: [any Service])
    {
        let http = HTTPClient.shared
        var services: [any Service] = []
        // Receivers are other people's servers: a redirect could point anywhere (a private address the URL check
        // refused), so webhooks follow none, and connect to the very address that was checked.
        var senders: [NotificationChannel: any NotificationSender] = [
            .webhook: WebhookSender(
                concurrency: webhookConcurrency,
                connection: WebhookConnection(allowPrivateAddresses: configuration.environment == .development),
                clock: clock, sealer: sealer)
        ]
        if let file = configuration.notifications.fcmServiceAccountFile {
            let account = try GoogleServiceAccount.load(path: file)
            senders[.fcm] = FCMSender(
                concurrency: pushConcurrency, baseURL: trimmed(configuration.notifications.fcmBaseURL),
                projectId: account.projectId,
                tokens: try await GoogleAccessTokens(account: account, http: http, clock: clock), http: http,
                clock: clock)
        }
        if let file = configuration.notifications.apnsKeyFile {
            guard let keyId = configuration.notifications.apnsKeyId,
                let teamId = configuration.notifications.apnsTeamId,
                let topic = configuration.notifications.apnsTopic
            else {
                throw ConfigurationError(
                    "LOGISTICS_APNS_KEY_FILE needs LOGISTICS_APNS_KEY_ID, LOGISTICS_APNS_TEAM_ID and LOGISTICS_APNS_TOPIC"
                )
            }
            var apnsHTTP = http
            if let caFile = configuration.notifications.apnsCAFile {
                let roots: [NIOSSLCertificate]
                do { roots = try NIOSSLCertificate.fromPEMFile(caFile) } catch {
                    throw ConfigurationError("LOGISTICS_APNS_CA_FILE \(caFile) holds no PEM certificate")
                }
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .certificates(roots)
                apnsHTTP = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
                services.append(HTTPClientShutdown(client: apnsHTTP))
            }
            senders[.apns] = APNsSender(
                concurrency: pushConcurrency, baseURL: trimmed(configuration.notifications.apnsBaseURL), topic: topic,
                tokens: try await APNsProviderTokens(keyFile: file, keyId: keyId, teamId: teamId, clock: clock),
                http: apnsHTTP, clock: clock)
        }
        senders[.sms] = CustomerTextSender(
            inner: try textSender(
                configuration, twilioAuthToken: twilioAuthToken, http: http, clock: clock, logger: logger),
            composer: composer)
        if let whatsApp = try whatsAppSender(
            configuration, twilioAuthToken: twilioAuthToken, composer: composer, http: http, clock: clock)
        {
            senders[.whatsapp] = whatsApp
        }
        return (senders, services)
    }

    private static func whatsAppSender(
        _ configuration: ServerConfiguration, twilioAuthToken: Redacted?, composer: CustomerTextComposer,
        http: HTTPClient, clock: any WallClock
    ) throws -> (any NotificationSender)? {
        let settings = configuration.customerMessages
        switch settings.whatsAppProvider {
        case .off:
            return nil
        case .cloud:
            return WhatsAppCloudSender(
                concurrency: textConcurrency, baseURL: settings.whatsAppBaseURL,
                phoneNumberId: settings.whatsAppPhoneNumberId ?? "",
                token: try SecretFile.read(settings.whatsAppTokenFile ?? "", what: "LOGISTICS_WHATSAPP_TOKEN_FILE"),
                composer: composer, templates: settings.whatsAppTemplates, languages: settings.whatsAppLanguages,
                http: http, clock: clock)
        case .twilio:
            guard let twilioAuthToken, let from = settings.twilioWhatsAppFrom else {
                throw ConfigurationError("WhatsApp through Twilio needs Twilio's credentials")
            }
            let twilio = twilioSender(
                configuration, authToken: twilioAuthToken, from: "whatsapp:" + from, messagingServiceSid: nil,
                http: http, clock: clock)
            return CustomerTextSender(inner: TwilioWhatsAppSender(twilio: twilio), composer: composer)
        }
    }

    static let textConcurrency = 8

    private static func textSender(
        _ configuration: ServerConfiguration, twilioAuthToken: Redacted?, http: HTTPClient, clock: any WallClock,
        logger: Logger
    ) throws -> any NotificationSender {
        let settings = configuration.textMessages
        switch settings.provider {
        case .log:
            return LogTextSender(logger: logger)
        case .twilio:
            guard let twilioAuthToken else { throw ConfigurationError("Twilio needs LOGISTICS_TWILIO_AUTH_TOKEN_FILE") }
            return twilioSender(
                configuration, authToken: twilioAuthToken, from: settings.twilioFrom,
                messagingServiceSid: settings.twilioMessagingServiceSid, http: http, clock: clock)
        case .http:
            return HTTPTextSender(
                concurrency: textConcurrency, url: settings.httpURL ?? "",
                token: try settings.httpTokenFile.map {
                    try SecretFile.read($0, what: "LOGISTICS_SMS_HTTP_TOKEN_FILE")
                },
                http: http, clock: clock)
        }
    }

    /// Twilio's Messages API for the account, from a number (SMS or `whatsapp:`) or a messaging service, with the
    /// status callback on the public URL when there is one.
    private static func twilioSender(
        _ configuration: ServerConfiguration, authToken: Redacted, from: String?, messagingServiceSid: String?,
        http: HTTPClient, clock: any WallClock
    ) -> TwilioTextSender {
        TwilioTextSender(
            concurrency: textConcurrency, baseURL: configuration.textMessages.twilioBaseURL,
            accountSid: configuration.textMessages.twilioAccountSid ?? "", authToken: authToken, from: from,
            messagingServiceSid: messagingServiceSid,
            statusCallback: configuration.publicURL.map { $0 + TwilioReceiptRoutes.publicPath }, http: http,
            clock: clock)
    }

    static func policies(_ configuration: ServerConfiguration) -> [NotificationChannel: RetryPolicy] {
        let push = RetryPolicy(
            base: RetryPolicy.pushes.base, cap: RetryPolicy.pushes.cap,
            budget: TimeInterval(configuration.notifications.pushRetryBudgetSeconds))
        let text = RetryPolicy(
            base: RetryPolicy.pushes.base, cap: RetryPolicy.pushes.cap,
            budget: TimeInterval(configuration.textMessages.retryBudgetSeconds))
        return [
            .fcm: push, .apns: push,
            .webhook: RetryPolicy(
                base: configuration.notifications.webhookRetryBaseSeconds, cap: RetryPolicy.webhooks.cap,
                budget: TimeInterval(configuration.notifications.webhookRetryBudgetSeconds)),
            .sms: text, .whatsapp: text,
        ]
    }

    private static func trimmed(_ url: String) -> String {
        url.hasSuffix("/") ? String(url.dropLast()) : url
    }
}

/// Shuts a dedicated HTTP client down when the server stops (AsyncHTTPClient insists on it).
struct HTTPClientShutdown: Service {
    let client: HTTPClient

    func run() async throws {
        try? await gracefulShutdown()
        try await client.shutdown()
    }
}

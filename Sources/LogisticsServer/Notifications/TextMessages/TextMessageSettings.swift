import Foundation

/// Which SMS provider sends text messages (sign-in codes, invitations), read from the environment.
public struct TextMessageSettings: Sendable, Equatable {
    public enum Provider: String, Sendable, Equatable {
        /// Development: each message is written to the server log (and the demo's console).
        case log
        /// Twilio's Messages API.
        case twilio
        /// A JSON POST to a gateway of the company's own.
        case http
    }

    public var provider: Provider = .log
    public var twilioAccountSid: String?
    public var twilioAuthTokenFile: String?
    public var twilioFrom: String?
    public var twilioMessagingServiceSid: String?
    public var twilioBaseURL = "https://api.twilio.com"
    public var httpURL: String?
    public var httpTokenFile: String?
    /// Retries of one message are given up after this long (a code is useless after 5 minutes, an invitation is not).
    public var retryBudgetSeconds = 3600

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .custom("LOGISTICS_SMS_PROVIDER") { settings, name in
                guard let parsed = Provider(rawValue: name) else {
                    throw ConfigurationError("LOGISTICS_SMS_PROVIDER must be log, twilio or http, not \(name)")
                }
                settings.provider = parsed
            },
            .text("LOGISTICS_TWILIO_ACCOUNT_SID", \.twilioAccountSid),
            .text("LOGISTICS_TWILIO_AUTH_TOKEN_FILE", \.twilioAuthTokenFile),
            .text("LOGISTICS_TWILIO_FROM", \.twilioFrom),
            .text("LOGISTICS_TWILIO_MESSAGING_SERVICE_SID", \.twilioMessagingServiceSid),
            .custom("LOGISTICS_TWILIO_BASE_URL") { settings, base in
                settings.twilioBaseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
            },
            .text("LOGISTICS_SMS_HTTP_URL", \.httpURL),
            .text("LOGISTICS_SMS_HTTP_TOKEN_FILE", \.httpTokenFile),
            .custom("LOGISTICS_SMS_RETRY_BUDGET_SECONDS") { settings, seconds in
                settings.retryBudgetSeconds = try wholeNumber(
                    seconds, name: "LOGISTICS_SMS_RETRY_BUDGET_SECONDS", in: 10...86_400)
            },
        ]
    }

    /// What one provider needs besides its name: refused at start, not at the first message.
    func check() throws {
        switch provider {
        case .log:
            break
        case .twilio:
            guard let sid = twilioAccountSid, sid.hasPrefix("AC"), twilioAuthTokenFile != nil else {
                throw ConfigurationError(
                    "LOGISTICS_SMS_PROVIDER=twilio needs LOGISTICS_TWILIO_ACCOUNT_SID (AC…) and LOGISTICS_TWILIO_AUTH_TOKEN_FILE"
                )
            }
            guard (twilioFrom == nil) != (twilioMessagingServiceSid == nil) else {
                throw ConfigurationError(
                    "LOGISTICS_SMS_PROVIDER=twilio needs one of LOGISTICS_TWILIO_FROM and LOGISTICS_TWILIO_MESSAGING_SERVICE_SID"
                )
            }
        case .http:
            guard let url = httpURL, url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw ConfigurationError("LOGISTICS_SMS_PROVIDER=http needs LOGISTICS_SMS_HTTP_URL (http or https)")
            }
        }
    }

    /// Twilio's auth token, read once from its file at start: the sender signs in with it and the status callbacks
    /// are checked against it. Nil with another provider.
    func twilioAuthToken() throws -> Redacted? {
        guard provider == .twilio else { return nil }
        return try SecretFile.read(twilioAuthTokenFile ?? "", what: "LOGISTICS_TWILIO_AUTH_TOKEN_FILE")
    }

    var summary: String {
        switch provider {
        case .log: "log (messages written to the server log)"
        case .twilio:
            "twilio \(twilioAccountSid ?? "?") from \(twilioFrom ?? twilioMessagingServiceSid ?? "?"), \(twilioBaseURL)"
        case .http: "http \(ServerConfiguration.maskedURL(httpURL ?? ""))"
        }
    }
}

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

    mutating func apply(_ environment: [String: String]) throws {
        func value(_ name: String) -> String? {
            environment[name].flatMap { $0.isEmpty ? nil : $0 }
        }
        if let name = value("LOGISTICS_SMS_PROVIDER") {
            guard let parsed = Provider(rawValue: name) else {
                throw ConfigurationError("LOGISTICS_SMS_PROVIDER must be log, twilio or http, not \(name)")
            }
            provider = parsed
        }
        twilioAccountSid = value("LOGISTICS_TWILIO_ACCOUNT_SID")
        twilioAuthTokenFile = value("LOGISTICS_TWILIO_AUTH_TOKEN_FILE")
        twilioFrom = value("LOGISTICS_TWILIO_FROM")
        twilioMessagingServiceSid = value("LOGISTICS_TWILIO_MESSAGING_SERVICE_SID")
        if let base = value("LOGISTICS_TWILIO_BASE_URL") {
            twilioBaseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
        }
        httpURL = value("LOGISTICS_SMS_HTTP_URL")
        httpTokenFile = value("LOGISTICS_SMS_HTTP_TOKEN_FILE")
        if let seconds = value("LOGISTICS_SMS_RETRY_BUDGET_SECONDS") {
            retryBudgetSeconds = try ServerConfiguration.parseInt(
                seconds, name: "LOGISTICS_SMS_RETRY_BUDGET_SECONDS", range: 10...86_400)
        }
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

/// How sign-in by phone behaves.
public struct SignInSettings: Sendable, Equatable {
    /// `LOGISTICS_SIGN_IN=off`: only tokens minted elsewhere (an identity provider, `logistics token`).
    public var enabled = true
    public var accessTokenMinutes = 15
    public var refreshTokenDays = 30
    /// Code requests from one address (its /64 for IPv6) per 10 minutes, whatever the phones.
    public var codeRequestsPerAddress = 20

    public init() {}

    mutating func apply(_ environment: [String: String]) throws {
        if let value = environment["LOGISTICS_SIGN_IN"], !value.isEmpty {
            guard ["on", "off"].contains(value) else {
                throw ConfigurationError("LOGISTICS_SIGN_IN must be on or off, not \(value)")
            }
            enabled = value == "on"
        }
        if let minutes = environment["LOGISTICS_ACCESS_TOKEN_MINUTES"], !minutes.isEmpty {
            accessTokenMinutes = try ServerConfiguration.parseInt(
                minutes, name: "LOGISTICS_ACCESS_TOKEN_MINUTES", range: 1...1440)
        }
        if let days = environment["LOGISTICS_REFRESH_TOKEN_DAYS"], !days.isEmpty {
            refreshTokenDays = try ServerConfiguration.parseInt(
                days, name: "LOGISTICS_REFRESH_TOKEN_DAYS", range: 1...365)
        }
        if let count = environment["LOGISTICS_SIGN_IN_CODES_PER_ADDRESS"], !count.isEmpty {
            codeRequestsPerAddress = try ServerConfiguration.parseInt(
                count, name: "LOGISTICS_SIGN_IN_CODES_PER_ADDRESS", range: 1...100_000)
        }
    }
}

import Foundation
import LogisticsCore

/// How customers hear about their orders: the channels when an order names none, who the texts say they are
/// from, the clock their times are written in, and WhatsApp's provider and templates.
public struct CustomerMessageSettings: Sendable, Equatable {
    public enum WhatsAppProvider: String, Sendable, Equatable {
        /// No WhatsApp: orders asking for it get their next channel.
        case off
        /// Meta's WhatsApp Cloud API.
        case cloud
        /// Twilio's WhatsApp sender (`whatsapp:` numbers on the Messages API).
        case twilio
    }

    /// Most preferred first: app users get pushes, everyone else a text.
    public var channels: [CustomerChannel] = [.push, .sms]
    /// The name every text starts with, so the customer knows who writes.
    public var senderName = "Rider Logistics"
    /// Times in texts ("delivered at 14:05") are the customers' wall clock.
    public var timeZone = "UTC"

    public var whatsAppProvider: WhatsAppProvider = .off
    public var whatsAppPhoneNumberId: String?
    public var whatsAppTokenFile: String?
    public var whatsAppBaseURL = "https://graph.facebook.com"
    /// Meta's app secret: webhooks are signed with it (`X-Hub-Signature-256`).
    public var whatsAppAppSecretFile: String?
    /// The token Meta echoes in its webhook verification handshake.
    public var whatsAppVerifyTokenFile: String?
    /// Twilio's WhatsApp-enabled number, when Twilio sends WhatsApp.
    public var twilioWhatsAppFrom: String?
    /// Approved template names by message key; a key without one is not sent on WhatsApp (the next channel is).
    public var whatsAppTemplates: [String: String] = Self.defaultTemplates
    /// The template language per catalog language (Meta's codes: `en`, `en_US`, `hi`, `mr`).
    public var whatsAppLanguages: [String: String] = ["en": "en", "hi": "hi", "mr": "mr"]

    public static let defaultTemplates: [String: String] = [
        NotificationKey.orderReceived: "order_received",
        NotificationKey.riderAssigned: "rider_assigned",
        NotificationKey.pickedUp: "order_picked_up",
        NotificationKey.pickedUp + ".code": "order_picked_up_code",
        NotificationKey.riderArrived: "rider_arrived",
        NotificationKey.riderArrived + ".code": "rider_arrived_code",
        NotificationKey.delivered: "order_delivered",
        NotificationKey.deliveryFailed: "delivery_failed",
        NotificationKey.orderCancelled: "order_cancelled",
        NotificationKey.customerUnavailable: "rider_at_door",
        NotificationKey.addressNotFound: "address_not_found",
        NotificationKey.wrongAddress: "address_wrong",
        NotificationKey.storeClosed: "store_closed",
        NotificationKey.orderNotReadyAtStore: "order_not_ready",
        NotificationKey.riderVehicleTrouble: "rider_vehicle_trouble",
    ]

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .custom("LOGISTICS_CUSTOMER_CHANNELS") { settings, text in
                guard let channels = CustomerChannel.list(text) else {
                    throw ConfigurationError(
                        "LOGISTICS_CUSTOMER_CHANNELS must list push, sms and whatsapp (comma-separated), not \(text)")
                }
                settings.channels = channels
            },
            .text("LOGISTICS_SENDER_NAME", \.senderName),
            .custom("LOGISTICS_CUSTOMER_TIME_ZONE") { settings, name in
                guard TimeZone(identifier: name) != nil else {
                    throw ConfigurationError("LOGISTICS_CUSTOMER_TIME_ZONE must be a time zone such as Asia/Kolkata")
                }
                settings.timeZone = name
            },
            .custom("LOGISTICS_WHATSAPP_PROVIDER") { settings, name in
                guard let provider = WhatsAppProvider(rawValue: name) else {
                    throw ConfigurationError("LOGISTICS_WHATSAPP_PROVIDER must be off, cloud or twilio, not \(name)")
                }
                settings.whatsAppProvider = provider
            },
            .text("LOGISTICS_WHATSAPP_PHONE_NUMBER_ID", \.whatsAppPhoneNumberId),
            .text("LOGISTICS_WHATSAPP_TOKEN_FILE", \.whatsAppTokenFile),
            .custom("LOGISTICS_WHATSAPP_BASE_URL") { settings, base in
                settings.whatsAppBaseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
            },
            .text("LOGISTICS_WHATSAPP_APP_SECRET_FILE", \.whatsAppAppSecretFile),
            .text("LOGISTICS_WHATSAPP_VERIFY_TOKEN_FILE", \.whatsAppVerifyTokenFile),
            .text("LOGISTICS_TWILIO_WHATSAPP_FROM", \.twilioWhatsAppFrom),
            .custom("LOGISTICS_WHATSAPP_TEMPLATES") { settings, text in
                settings.whatsAppTemplates = try pairs(text, name: "LOGISTICS_WHATSAPP_TEMPLATES")
            },
            .custom("LOGISTICS_WHATSAPP_LANGUAGES") { settings, text in
                settings.whatsAppLanguages = try pairs(text, name: "LOGISTICS_WHATSAPP_LANGUAGES")
            },
        ]
    }

    /// `a=b,c=d` as a dictionary.
    private static func pairs(_ text: String, name: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw ConfigurationError("\(name) must be key=value pairs separated by commas, not \(text)")
            }
            result[parts[0]] = parts[1]
        }
        return result
    }

    /// What the WhatsApp provider needs, refused at start.
    func check(textMessages: TextMessageSettings) throws {
        switch whatsAppProvider {
        case .off:
            break
        case .cloud:
            guard whatsAppPhoneNumberId != nil, whatsAppTokenFile != nil else {
                throw ConfigurationError(
                    "LOGISTICS_WHATSAPP_PROVIDER=cloud needs LOGISTICS_WHATSAPP_PHONE_NUMBER_ID and LOGISTICS_WHATSAPP_TOKEN_FILE"
                )
            }
        case .twilio:
            guard textMessages.provider == .twilio, let from = twilioWhatsAppFrom, PhoneNumber.isValid(from) else {
                throw ConfigurationError(
                    "LOGISTICS_WHATSAPP_PROVIDER=twilio needs Twilio as the SMS provider and LOGISTICS_TWILIO_WHATSAPP_FROM (E.164)"
                )
            }
        }
    }

    var summary: String {
        let whatsApp =
            switch whatsAppProvider {
            case .off: "no WhatsApp"
            case .cloud: "WhatsApp Cloud API \(whatsAppPhoneNumberId ?? "?") at \(whatsAppBaseURL)"
            case .twilio: "WhatsApp through Twilio from \(twilioWhatsAppFrom ?? "?")"
            }
        return "\(channels.map(\.rawValue).joined(separator: ",")) as \"\(senderName)\", \(whatsApp)"
    }
}

/// Providers' secrets, read once from their files at start: senders sign in with them and the providers' callbacks
/// are checked against them.
struct ProviderSecrets: Sendable {
    var twilioAuthToken: Redacted?
    var whatsAppAppSecret: Redacted?
    var whatsAppVerifyToken: Redacted?

    init(_ configuration: ServerConfiguration) throws {
        twilioAuthToken = try configuration.textMessages.twilioAuthToken()
        let whatsApp = configuration.customerMessages
        whatsAppAppSecret = try whatsApp.whatsAppAppSecretFile.map {
            try SecretFile.read($0, what: "LOGISTICS_WHATSAPP_APP_SECRET_FILE")
        }
        whatsAppVerifyToken = try whatsApp.whatsAppVerifyTokenFile.map {
            try SecretFile.read($0, what: "LOGISTICS_WHATSAPP_VERIFY_TOKEN_FILE")
        }
    }
}

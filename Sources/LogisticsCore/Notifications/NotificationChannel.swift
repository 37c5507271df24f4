import Foundation

/// How a notification leaves the system.
public enum NotificationChannel: String, Sendable, CaseIterable, Codable {
    /// Firebase Cloud Messaging: Android phones and web browsers.
    case fcm
    /// Apple Push Notification service: iPhones.
    case apns
    /// An HTTPS endpoint of another system, signed with its shared secret.
    case webhook
    /// A text message to a phone, through the configured SMS provider.
    case sms
    /// An approved WhatsApp template message, through Meta's Cloud API or Twilio's WhatsApp sender.
    case whatsapp
}

/// The ways an order's customer can be told about it (`customer.notify`), most preferred first.
public enum CustomerChannel: String, Sendable, CaseIterable, Codable {
    case sms
    case whatsapp
    /// The customer app's pushes: used when the customer has a device registered, skipped otherwise.
    case push

    /// The text channel that carries it; nil for push, which goes to devices.
    public var textChannel: NotificationChannel? {
        switch self {
        case .sms: .sms
        case .whatsapp: .whatsapp
        case .push: nil
        }
    }

    /// `sms,whatsapp` → [.sms, .whatsapp]; nil when a name is unknown or the list is empty.
    public static func list(_ text: String) -> [CustomerChannel]? {
        let names = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        let channels = names.compactMap(CustomerChannel.init(rawValue:))
        guard !channels.isEmpty, channels.count == names.count else { return nil }
        return channels.reduce(into: []) { if !$0.contains($1) { $0.append($1) } }
    }
}

/// The kind of device a rider or customer registers for push.
public enum DevicePlatform: String, Sendable, CaseIterable, Codable {
    case android
    case ios
    case web

    public var channel: NotificationChannel { self == .ios ? .apns : .fcm }
}

/// A device that receives pushes for one rider or customer.
public struct RegisteredDevice: Sendable, Equatable {
    public var id: UUID
    public var ownerId: UUID
    public var ownerRole: Role
    public var deviceId: String
    public var platform: DevicePlatform
    public var pushToken: String
    public var locale: String?
    public var updatedAt: Date

    public init(
        id: UUID, ownerId: UUID, ownerRole: Role, deviceId: String, platform: DevicePlatform, pushToken: String,
        locale: String?, updatedAt: Date
    ) {
        self.id = id
        self.ownerId = ownerId
        self.ownerRole = ownerRole
        self.deviceId = deviceId
        self.platform = platform
        self.pushToken = pushToken
        self.locale = locale
        self.updatedAt = updatedAt
    }
}

/// Another system that wants to hear about order events.
public struct WebhookSubscription: Sendable, Equatable {
    public var id: UUID
    public var url: String
    /// Event types (`OrderAssigned`, `DeliveryStatusUpdated`, …) or `*` for all.
    public var events: [String]
    public var secret: String
    public var createdAt: Date

    public init(id: UUID, url: String, events: [String], secret: String, createdAt: Date) {
        self.id = id
        self.url = url
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
    }

    public func wants(_ eventType: String) -> Bool { events.contains("*") || events.contains(eventType) }
}

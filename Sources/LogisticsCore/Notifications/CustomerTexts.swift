import Foundation

/// Text messages (SMS, WhatsApp) to customers, in the catalog's words (`NotificationCatalog.textMessages`, beside the
/// push texts of the same keys and languages), filled for one segment and for WhatsApp's templates.
///
/// English must fit one SMS segment (160 GSM-7 characters) with the link: `fit` shortens the store's and the
/// rider's names to make room. Hindi and Marathi are sent as Unicode (70 characters a segment) and may take two.
public enum CustomerTexts {
    /// The delivery code rides along with "picked up" and "arrived" on OTP orders: the one way a customer without
    /// the app learns it.
    public static func key(_ key: String, withCode: Bool) -> String {
        withCode && (key == NotificationKey.pickedUp || key == NotificationKey.riderArrived) ? key + ".code" : key
    }

    /// The values each key's WhatsApp template takes, in the order of its `{{1}}`, `{{2}}`, …: templates are
    /// approved by Meta with their words, so only these travel.
    public static let templateParameters: [String: [String]] = [
        NotificationKey.orderReceived: ["vendor", "link"],
        NotificationKey.riderAssigned: ["rider", "vendor", "link"],
        NotificationKey.pickedUp: ["vendor", "link"],
        NotificationKey.pickedUp + ".code": ["code", "link"],
        NotificationKey.riderArrived: [],
        NotificationKey.riderArrived + ".code": ["code"],
        NotificationKey.delivered: ["vendor", "time", "link"],
        NotificationKey.deliveryFailed: ["vendor", "reason"],
        NotificationKey.orderCancelled: ["vendor", "by"],
        NotificationKey.customerUnavailable: [],
        NotificationKey.addressNotFound: [],
        NotificationKey.deliveryProblem: [],
        NotificationKey.wrongAddress: [],
        NotificationKey.storeClosed: ["vendor"],
        NotificationKey.orderNotReadyAtStore: ["vendor"],
        NotificationKey.riderVehicleTrouble: ["vendor"],
        NotificationKey.orderReturning: ["vendor", "reason"],
        NotificationKey.orderReturned: ["vendor"],
    ]

    /// Messages for customers without the app: one whose first channel is the app already sees the order there, so
    /// these are sent by text only, and not at all to an app user.
    public static let textOnlyKeys: Set<String> = [NotificationKey.orderReceived]

    private static func words(_ key: String, _ language: String) -> String? {
        let catalog = NotificationCatalog.textMessages
        return catalog[language]?[key] ?? catalog[NotificationCatalog.fallbackLocale]?[key]
    }

    /// The catalog's language for a locale (`hi-IN` → `hi`), English for one it lacks.
    public static func language(_ locale: String?) -> String {
        let code = locale.map(NotificationCatalog.languageCode) ?? NotificationCatalog.fallbackLocale
        return NotificationCatalog.textMessages[code] == nil ? NotificationCatalog.fallbackLocale : code
    }

    /// A phrase of the catalog (a reason, who cancelled) in the locale's language.
    public static func phrase(_ key: String, locale: String?) -> String? {
        words(key, language(locale))
    }

    /// Why, as a customer is told it: the catalog's words for a reason the system names (`CUSTOMER_UNAVAILABLE`,
    /// `ADDRESS_NOT_FOUND`, …), and for anything else the words for a problem on the way. A dispatcher's or a
    /// rider's own words are written for colleagues and stay in the order's log: they never reach a customer.
    public static func reason(_ raw: String, locale: String?) -> String {
        phrase("reason.\(raw)", locale: locale) ?? phrase("reason.OTHER", locale: locale)
            ?? "there was a problem on the way"
    }

    /// A customer's message's values with the reason in customer words (see `reason`).
    public static func customerArguments(_ arguments: [String: String], locale: String?) -> [String: String] {
        guard let raw = arguments["reason"] else { return arguments }
        var values = arguments
        values["reason"] = reason(raw, locale: locale)
        return values
    }

    /// The message for `key`, or nil when customers get no text for it.
    public static func message(_ key: String, locale: String?, arguments: [String: String]) -> String? {
        let language = language(locale)
        guard let template = words(key, language) else {
            return nil
        }
        if language == NotificationCatalog.fallbackLocale { return fit(template, arguments) }
        return NotificationCatalog.fill(template, arguments)
    }

    /// Fills the template so that the text is one GSM-7 segment: names lose characters the alphabet lacks
    /// (accents first become plain letters), then the store's and rider's names are cut, the longest first.
    static func fit(_ template: String, _ arguments: [String: String]) -> String {
        var values = arguments.mapValues(GSM7.plain)
        var text = NotificationCatalog.fill(template, values)
        for name in ["vendor", "rider", "sender"] {
            while GSM7.septets(text) > GSM7.segment, let value = values[name], value.count > 3 {
                let excess = GSM7.septets(text) - GSM7.segment
                let keep = max(value.count - excess - 3, 3)
                values[name] = String(value.prefix(keep)).trimmingCharacters(in: .whitespaces) + "..."
                if values[name]!.count >= value.count { break }
                text = NotificationCatalog.fill(template, values)
            }
        }
        return text
    }
}

/// The GSM 03.38 alphabet SMS sends in 7 bits: 160 characters a segment; anything outside it makes the whole
/// message Unicode, 70 characters a segment.
public enum GSM7 {
    public static let segment = 160
    static let basic = Set(
        "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
            + "abcdefghijklmnopqrstuvwxyzäöñüà")
    /// Characters that take an escape and so two septets.
    static let extended = Set("^{}\\[~]|€")

    /// Septets the text takes, or nil when it needs Unicode.
    public static func septets(_ text: String) -> Int {
        text.reduce(0) { $0 + (basic.contains($1) ? 1 : extended.contains($1) ? 2 : 1000) }
    }

    public static func isGSM7(_ text: String) -> Bool {
        text.allSatisfy { basic.contains($0) || extended.contains($0) }
    }

    /// The text in the alphabet: accents dropped where the alphabet lacks the letter, other characters removed.
    public static func plain(_ text: String) -> String {
        if isGSM7(text) { return text }
        let stripped = text.map {
            basic.contains($0) ? String($0) : String($0).folding(options: .diacriticInsensitive, locale: nil)
        }.joined()
        return String(stripped.filter { basic.contains($0) || extended.contains($0) })
    }
}

/// What a customer's reply to a text means for further texts, as carriers and Twilio read the usual words.
public enum OptOutKeyword {
    case stop
    case start

    public static func parse(_ body: String) -> OptOutKeyword? {
        let word = body.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)).uppercased()
        if ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"].contains(word) {
            return .stop
        }
        if ["START", "UNSTOP", "YES", "SUBSCRIBE"].contains(word) { return .start }
        return nil
    }
}

/// Which one of an order's channels carries a customer message: the first the customer can be reached on. A push
/// needs a registered device, a text a phone in E.164 that has not opted out and a provider for the channel. A
/// customer reachable on none gets nothing, and nothing fails.
public struct CustomerRoute: Sendable, Equatable {
    public var preferred: [CustomerChannel]
    public var hasDevice: Bool
    public var textablePhone: String?
    public var optedOut: Bool
    /// The channels this server has a provider for.
    public var enabled: Set<NotificationChannel>

    public init(
        preferred: [CustomerChannel], hasDevice: Bool, textablePhone: String?, optedOut: Bool,
        enabled: Set<NotificationChannel>
    ) {
        self.preferred = preferred
        self.hasDevice = hasDevice
        self.textablePhone = textablePhone
        self.optedOut = optedOut
        self.enabled = enabled
    }

    public func usable(_ channel: CustomerChannel) -> Bool {
        switch channel {
        case .push: hasDevice
        case .sms: textablePhone != nil && !optedOut && enabled.contains(.sms)
        case .whatsapp: textablePhone != nil && !optedOut && enabled.contains(.whatsapp)
        }
    }

    /// The first usable channel.
    public var first: CustomerChannel? { preferred.first(where: usable) }

    /// The usable channel after a failed one, for the one fallback a failed text gets.
    public func fallback(after failed: CustomerChannel) -> CustomerChannel? {
        guard let index = preferred.firstIndex(of: failed) else { return nil }
        return preferred[(index + 1)...].first(where: usable)
    }
}

/// The texts of push notifications, by key and locale. English is the source every other locale translates;
/// a key a locale lacks falls back to English, so a half-translated catalog still sends something readable.
///
/// Placeholders are `{name}`, filled from the notification's arguments. To add a language, copy the `en`
/// table, translate the values and keep the keys and placeholders as they are.
public enum NotificationCatalog {
    public struct Text: Sendable, Equatable {
        public var title: String
        public var body: String
    }

    public static let fallbackLocale = "en"

    static let tables: [String: [String: (title: String, body: String)]] = [
        "en": [
            NotificationKey.riderAssigned: ("Rider assigned", "A rider has been assigned to your order"),
            NotificationKey.pickedUp: ("On its way", "Your order has been picked up and is on its way."),
            NotificationKey.riderArrived: ("Your rider has arrived!", "Your rider has arrived!"),
            NotificationKey.delivered: ("Delivered", "Your order has been delivered. Enjoy!"),
            NotificationKey.deliveryFailed: (
                "Delivery failed", "We could not deliver your order. We will contact you."
            ),
            NotificationKey.orderCancelled: ("Order cancelled", "Your order has been cancelled."),
            NotificationKey.customerUnavailable: (
                "About your delivery", "Your rider is at your address and can't reach you"
            ),
            NotificationKey.addressNotFound: (
                "About your delivery", "Your rider can't find your address"
            ),
            NotificationKey.deliveryProblem: (
                "About your delivery", "Your rider reported a problem with your delivery"
            ),
            NotificationKey.newOffer: ("New delivery offer", "Pickup at {vendor}. Accept within {seconds} seconds."),
            NotificationKey.deliveryCancelled: (
                "Delivery cancelled", "The order you were delivering has been cancelled. Do not continue."
            ),
            NotificationKey.failureApproved: ("Dispatcher decision", "You may mark this delivery as failed."),
            NotificationKey.orderReady: ("Order ready", "{vendor} has your order ready for pickup."),
            NotificationKey.proofWaived: (
                "Dispatcher decision", "You may complete this delivery without the usual proof."
            ),
            NotificationKey.orderReassigned: (
                "Order given to another rider", "Order {reference} has been given to another rider. Do not pick it up."
            ),
            NotificationKey.returnToStore: (
                "Take the order back", "Take order {reference} back to {vendor}: {reason}"
            ),
            NotificationKey.orderReturning: (
                "Going back to the store", "Your order is going back to {vendor}: {reason}"
            ),
            NotificationKey.orderReturned: ("Returned to the store", "Your order is back at {vendor}."),
        ],
        // Hindi, for the Mumbai pilot. Everyday Hindi as delivery apps write it, with common English loanwords.
        "hi": [
            NotificationKey.riderAssigned: ("राइडर तय हो गया", "आपके ऑर्डर के लिए राइडर तय हो गया है"),
            NotificationKey.pickedUp: ("रास्ते में है", "आपका ऑर्डर पिकअप हो गया है और रास्ते में है।"),
            NotificationKey.riderArrived: ("आपका राइडर पहुँच गया है!", "आपका राइडर पहुँच गया है!"),
            NotificationKey.delivered: ("डिलीवर हो गया", "आपका ऑर्डर डिलीवर हो गया है।"),
            NotificationKey.deliveryFailed: (
                "डिलीवरी नहीं हो सकी", "हम आपका ऑर्डर डिलीवर नहीं कर सके। हम आपसे संपर्क करेंगे।"
            ),
            NotificationKey.orderCancelled: ("ऑर्डर रद्द", "आपका ऑर्डर रद्द कर दिया गया है।"),
        ],
        // Marathi, for the Mumbai pilot.
        "mr": [
            NotificationKey.riderAssigned: ("रायडर नेमला", "तुमच्या ऑर्डरसाठी रायडर नेमला गेला आहे"),
            NotificationKey.pickedUp: ("वाटेवर आहे", "तुमची ऑर्डर पिकअप झाली आहे आणि वाटेवर आहे."),
            NotificationKey.riderArrived: ("तुमचा रायडर पोहोचला आहे!", "तुमचा रायडर पोहोचला आहे!"),
            NotificationKey.delivered: ("डिलिव्हर झाली", "तुमची ऑर्डर डिलिव्हर झाली आहे."),
            NotificationKey.deliveryFailed: (
                "डिलिव्हरी होऊ शकली नाही", "आम्ही तुमची ऑर्डर डिलिव्हर करू शकलो नाही. आम्ही तुमच्याशी संपर्क करू."
            ),
            NotificationKey.orderCancelled: ("ऑर्डर रद्द", "तुमची ऑर्डर रद्द करण्यात आली आहे."),
        ],
    ]

    /// The locales the catalog has at least one entry for.
    public static var locales: [String] { tables.keys.sorted() }

    /// The text of `key` for a device's locale (`hi-IN`, `mr`, `en_GB` …), falling back to English; nil for an
    /// unknown key.
    public static func text(_ key: String, locale: String?, arguments: [String: String] = [:]) -> Text? {
        let language = locale.map(languageCode) ?? fallbackLocale
        guard let entry = tables[language]?[key] ?? tables[fallbackLocale]?[key] else { return nil }
        return Text(title: fill(entry.title, arguments), body: fill(entry.body, arguments))
    }

    /// `hi-IN` and `hi_IN` → `hi`.
    public static func languageCode(_ locale: String) -> String {
        String(locale.prefix { $0 != "-" && $0 != "_" }).lowercased()
    }

    public static func fill(_ template: String, _ arguments: [String: String]) -> String {
        var text = template
        for (name, value) in arguments { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }
}

/// Keys of the catalog, one per thing a customer or rider is told.
public enum NotificationKey {
    public static let riderAssigned = "customer.riderAssigned"
    public static let pickedUp = "customer.pickedUp"
    public static let riderArrived = "customer.riderArrived"
    public static let delivered = "customer.delivered"
    public static let deliveryFailed = "customer.deliveryFailed"
    public static let orderCancelled = "customer.orderCancelled"
    public static let customerUnavailable = "customer.customerUnavailable"
    public static let addressNotFound = "customer.addressNotFound"
    public static let deliveryProblem = "customer.deliveryProblem"
    public static let newOffer = "rider.newOffer"
    public static let deliveryCancelled = "rider.deliveryCancelled"
    public static let failureApproved = "rider.failureApproved"
    public static let proofWaived = "rider.proofWaived"
    /// The dispatcher took the order from this rider before pickup.
    public static let orderReassigned = "rider.orderReassigned"
    /// The dispatcher sent the parcel back: the rider's next stop is the store.
    public static let returnToStore = "rider.returnToStore"
    public static let orderReturning = "customer.orderReturning"
    public static let orderReturned = "customer.orderReturned"
    /// Sent when a rider was sent ahead on the preparation time and the vendor then marks the order ready.
    public static let orderReady = "rider.orderReady"
}

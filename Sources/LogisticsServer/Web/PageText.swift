import LogisticsCore

/// The tracking page's words, by language, beside the notification catalog's (`NotificationCatalog` keys are
/// reused for the statuses the customer is told about).
enum PageText {
    static let languages = ["en", "hi", "mr"]

    static let tables: [String: [String: String]] = [
        "en": [
            "title": "Track your order", "loading": "Connecting…", "eta": "Arriving in about {minutes} min",
            "distance": "{km} km away", "lastUpdated": "Last updated {time}", "rider": "Your rider {name}",
            "waiting": "Waiting for your rider's position", "reconnecting": "Connection lost, reconnecting…",
            "notFoundTitle": "This tracking link does not work",
            "notFound": "Check that you opened the whole link from your message.",
            "endedTitle": "This delivery has ended", "ended": "There is nothing more to track for this order.",
            "IN_TRANSIT": "On its way", "ARRIVED_AT_DESTINATION": "Your rider has arrived!",
            "DELIVERED": "Delivered", "CANCELLED": "Order cancelled", "FAILED": "Delivery failed",
            "store": "Store", "you": "You", "attribution": "© OpenStreetMap contributors",
        ],
        "hi": [
            "title": "अपना ऑर्डर ट्रैक करें", "eta": "लगभग {minutes} मिनट में पहुँच रहा है",
            "lastUpdated": "आख़िरी अपडेट {time}", "IN_TRANSIT": "रास्ते में है",
            "ARRIVED_AT_DESTINATION": "आपका राइडर पहुँच गया है!", "DELIVERED": "डिलीवर हो गया",
            "CANCELLED": "ऑर्डर रद्द", "FAILED": "डिलीवरी नहीं हो सकी",
        ],
        "mr": [
            "title": "तुमची ऑर्डर ट्रॅक करा", "eta": "सुमारे {minutes} मिनिटांत पोहोचत आहे",
            "lastUpdated": "शेवटचे अपडेट {time}", "IN_TRANSIT": "वाटेवर आहे",
            "ARRIVED_AT_DESTINATION": "तुमचा रायडर पोहोचला आहे!", "DELIVERED": "डिलिव्हर झाली",
            "CANCELLED": "ऑर्डर रद्द", "FAILED": "डिलिव्हरी होऊ शकली नाही",
        ],
    ]

    /// Every text of the page in `language`, English where it has no translation.
    static func all(_ language: String) -> [String: String] {
        tables["en"]!.merging(tables[language] ?? [:]) { _, translated in translated }
    }
}

import LogisticsCore

/// The tracking page's words, by language. The statuses are the notification catalog's own titles (the words of
/// the pushes the customer gets); the rest are the page's, with the same languages and English fallback.
enum PageText {
    static let languages = ["en", "hi", "mr"]

    static let tables: [String: [String: String]] = [
        "en": [
            "title": "Track your order", "loading": "Connecting…", "eta": "Arriving in about {minutes} min",
            "distance": "{km} km away", "distanceM": "{metres} m away", "lastUpdated": "Last updated {time}",
            "rider": "Your rider: {name}",
            "waiting": "Waiting for your rider's position", "reconnecting": "Connection lost, reconnecting…",
            "notFoundTitle": "This tracking link does not work",
            "notFound": "Check that you opened the whole link from your message.",
            "endedTitle": "This delivery has ended", "ended": "There is nothing more to track for this order.",
            "store": "Store", "you": "You", "attribution": "© OpenStreetMap contributors",
        ],
        "hi": [
            "title": "अपना ऑर्डर ट्रैक करें", "eta": "लगभग {minutes} मिनट में पहुँच रहा है",
            "lastUpdated": "आख़िरी अपडेट {time}", "distance": "{km} किमी दूर", "distanceM": "{metres} मीटर दूर",
            "rider": "आपका राइडर: {name}",
        ],
        "mr": [
            "title": "तुमची ऑर्डर ट्रॅक करा", "eta": "सुमारे {minutes} मिनिटांत पोहोचत आहे",
            "lastUpdated": "शेवटचे अपडेट {time}", "distance": "{km} किमी दूर", "distanceM": "{metres} मीटर दूर",
            "rider": "तुमचा रायडर: {name}",
        ],
    ]

    /// The catalog's notification whose title names each status the page can show.
    static let statusKeys: [OrderStatus: String] = [
        .inTransit: NotificationKey.pickedUp, .arrivedAtDestination: NotificationKey.riderArrived,
        .delivered: NotificationKey.delivered, .cancelled: NotificationKey.orderCancelled,
        .failed: NotificationKey.deliveryFailed, .returningToStore: NotificationKey.orderReturning,
        .returned: NotificationKey.orderReturned,
    ]

    /// Every text of the page in `language`, English where it has no translation; statuses by their raw value.
    static func all(_ language: String) -> [String: String] {
        var texts = tables["en"]!.merging(tables[language] ?? [:]) { _, translated in translated }
        for (status, key) in statusKeys {
            texts[status.rawValue] = NotificationCatalog.text(key, locale: language)?.title
        }
        return texts
    }
}

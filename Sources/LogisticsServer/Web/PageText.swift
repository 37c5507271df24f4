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
            "orderFrom": "Order {ref} from {store}", "orderFromStore": "Your order from {store}",
            "mapLater": "The map appears here when your rider has picked up the order.",
            "endedAt": "{status} at {time}", "fromStore": "From {store}", "orderRef": "Order {ref}",
            // Before pickup the page says where the order is, in words, with no map (CUS-028 AC-003).
            "PENDING_VENDOR_ACCEPTANCE": "{store} has your order and will confirm it soon",
            "PREPARING": "{store} is preparing your order",
            "READY_FOR_PICKUP": "Your order is ready; a rider will pick it up soon",
            "RIDER_ASSIGNED": "A rider is on the way to {store} to pick up your order",
        ],
        "hi": [
            "title": "अपना ऑर्डर ट्रैक करें", "eta": "लगभग {minutes} मिनट में पहुँच रहा है",
            "lastUpdated": "आख़िरी अपडेट {time}", "distance": "{km} किमी दूर", "distanceM": "{metres} मीटर दूर",
            "rider": "आपका राइडर: {name}",
            "orderFrom": "{store} से ऑर्डर {ref}", "orderFromStore": "{store} से आपका ऑर्डर",
            "mapLater": "राइडर के ऑर्डर लेते ही यहाँ नक्शा दिखेगा।",
            "endedAt": "{status}, {time} बजे", "fromStore": "{store} से", "orderRef": "ऑर्डर {ref}",
            "PENDING_VENDOR_ACCEPTANCE": "{store} को आपका ऑर्डर मिल गया है, जल्द पुष्टि होगी",
            "PREPARING": "{store} आपका ऑर्डर तैयार कर रहा है",
            "READY_FOR_PICKUP": "आपका ऑर्डर तैयार है; राइडर जल्द उसे लेगा",
            "RIDER_ASSIGNED": "राइडर आपका ऑर्डर लेने {store} जा रहा है",
        ],
        "mr": [
            "title": "तुमची ऑर्डर ट्रॅक करा", "eta": "सुमारे {minutes} मिनिटांत पोहोचत आहे",
            "lastUpdated": "शेवटचे अपडेट {time}", "distance": "{km} किमी दूर", "distanceM": "{metres} मीटर दूर",
            "rider": "तुमचा रायडर: {name}",
            "orderFrom": "{store} कडून ऑर्डर {ref}", "orderFromStore": "{store} कडून तुमची ऑर्डर",
            "mapLater": "रायडरने ऑर्डर घेतल्यावर इथे नकाशा दिसेल.",
            "endedAt": "{status}, {time} वाजता", "fromStore": "{store} कडून", "orderRef": "ऑर्डर {ref}",
            "PENDING_VENDOR_ACCEPTANCE": "{store} कडे तुमची ऑर्डर आली आहे, लवकरच पुष्टी होईल",
            "PREPARING": "{store} तुमची ऑर्डर तयार करत आहे",
            "READY_FOR_PICKUP": "तुमची ऑर्डर तयार आहे; रायडर लवकरच ती घेईल",
            "RIDER_ASSIGNED": "रायडर तुमची ऑर्डर घेण्यासाठी {store} कडे जात आहे",
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

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
            // The link is the customer's: once the parcel is on its way it shows the code the rider asks for.
            "shareCode": "Share code {code} with your rider",
            "proofTitle": "Proof of delivery", "proofPhoto": "Photo taken at your door",
            "codeConfirmed": "Code confirmed", "rateTitle": "How was your delivery?",
            "star1": "Very poor", "star2": "Poor", "star3": "Okay", "star4": "Good", "star5": "Excellent",
            "comment": "Anything to add? (optional)", "sendRating": "Send rating",
            "chooseStars": "Choose how many stars first", "thanks": "Thank you for rating your delivery",
            "alreadyRated": "You have already rated this delivery", "yourRating": "Your rating: {stars} of 5",
            "ratingFailed": "Your rating could not be sent. Please try again.",
            "commentTooLong": "Please keep your comment to {max} characters",
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
            "shareCode": "अपने राइडर को कोड {code} बताएँ",
            "proofTitle": "डिलीवरी का सबूत", "proofPhoto": "आपके दरवाज़े पर ली गई फ़ोटो",
            "codeConfirmed": "कोड की पुष्टि हो गई", "rateTitle": "आपकी डिलीवरी कैसी रही?",
            "star1": "बहुत ख़राब", "star2": "ख़राब", "star3": "ठीक-ठाक", "star4": "अच्छी", "star5": "बहुत बढ़िया",
            "comment": "कुछ और कहना है? (ज़रूरी नहीं)", "sendRating": "रेटिंग भेजें",
            "chooseStars": "पहले चुनें कितने स्टार देने हैं", "thanks": "अपनी डिलीवरी को रेटिंग देने के लिए धन्यवाद",
            "alreadyRated": "आप इस डिलीवरी को पहले ही रेटिंग दे चुके हैं", "yourRating": "आपकी रेटिंग: 5 में से {stars}",
            "ratingFailed": "आपकी रेटिंग नहीं भेजी जा सकी। कृपया फिर से कोशिश करें।",
            "commentTooLong": "कृपया अपनी टिप्पणी {max} अक्षरों तक रखें",
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
            "shareCode": "तुमच्या रायडरला कोड {code} सांगा",
            "proofTitle": "डिलिव्हरीचा पुरावा", "proofPhoto": "तुमच्या दारात घेतलेला फोटो",
            "codeConfirmed": "कोडची खात्री झाली", "rateTitle": "तुमची डिलिव्हरी कशी झाली?",
            "star1": "खूप वाईट", "star2": "वाईट", "star3": "ठीक", "star4": "चांगली", "star5": "उत्तम",
            "comment": "आणखी काही सांगायचे आहे? (ऐच्छिक)", "sendRating": "रेटिंग पाठवा",
            "chooseStars": "आधी किती स्टार द्यायचे ते निवडा", "thanks": "तुमच्या डिलिव्हरीला रेटिंग दिल्याबद्दल धन्यवाद",
            "alreadyRated": "तुम्ही या डिलिव्हरीला आधीच रेटिंग दिले आहे", "yourRating": "तुमचे रेटिंग: 5 पैकी {stars}",
            "ratingFailed": "तुमचे रेटिंग पाठवता आले नाही. कृपया पुन्हा प्रयत्न करा.",
            "commentTooLong": "कृपया तुमची टिप्पणी {max} अक्षरांपर्यंत ठेवा",
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

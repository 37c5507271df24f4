/// Every word a customer or rider is told, by key and locale: push notifications (title and body) and, for
/// customers, text messages. English is the source every other locale translates;
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
            NotificationKey.orderReceived: ("Order received", "We have your order from {vendor}."),
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
            NotificationKey.orderNotReady: (
                "Order not ready yet", "{vendor} is still preparing the order: it is not ready for pickup yet."
            ),
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
            NotificationKey.wrongAddress: (
                "About your delivery", "The address on your order seems wrong. Please answer your phone."
            ),
            NotificationKey.storeClosed: (
                "About your delivery", "The store is closed, so your order is delayed. We will contact you."
            ),
            NotificationKey.orderNotReadyAtStore: (
                "About your delivery", "Your order is not ready at the store yet, so it will be a little late."
            ),
            NotificationKey.riderVehicleTrouble: (
                "About your delivery", "Your rider has vehicle trouble, so your order may be late."
            ),
            ReassignReason.riderDelayed.notificationKey: (
                "Order given to another rider",
                "Order {reference} went to another rider because the pickup was running late. Do not pick it up."
            ),
            ReassignReason.closerRider.notificationKey: (
                "Order given to another rider",
                "Order {reference} went to a rider nearer the store. Do not pick it up."
            ),
            ReassignReason.riderProblem.notificationKey: (
                "Order given to another rider",
                "Order {reference} went to another rider after the problem you reported. Do not pick it up."
            ),
            ReassignReason.planChanged.notificationKey: (
                "Order given to another rider",
                "Order {reference} went to another rider because the store or customer changed the plan. "
                    + "Do not pick it up."
            ),
            ReassignReason.other.notificationKey: (
                "Order given to another rider",
                "Order {reference} went to another rider: the dispatcher changed the plan. Do not pick it up."
            ),
        ],
        // Hindi, for the Mumbai pilot. Everyday Hindi as delivery apps write it, with common English loanwords.
        "hi": [
            NotificationKey.orderReceived: ("ऑर्डर मिल गया", "{vendor} से आपका ऑर्डर हमें मिल गया है।"),
            NotificationKey.riderAssigned: ("राइडर तय हो गया", "आपके ऑर्डर के लिए राइडर तय हो गया है"),
            NotificationKey.pickedUp: ("रास्ते में है", "आपका ऑर्डर पिकअप हो गया है और रास्ते में है।"),
            NotificationKey.riderArrived: ("आपका राइडर पहुँच गया है!", "आपका राइडर पहुँच गया है!"),
            NotificationKey.delivered: ("डिलीवर हो गया", "आपका ऑर्डर डिलीवर हो गया है।"),
            NotificationKey.deliveryFailed: (
                "डिलीवरी नहीं हो सकी", "हम आपका ऑर्डर डिलीवर नहीं कर सके। हम आपसे संपर्क करेंगे।"
            ),
            NotificationKey.orderCancelled: ("ऑर्डर रद्द", "आपका ऑर्डर रद्द कर दिया गया है।"),
            NotificationKey.customerUnavailable: (
                "आपकी डिलीवरी के बारे में", "आपका राइडर आपके पते पर है और आपसे संपर्क नहीं कर पा रहा"
            ),
            NotificationKey.addressNotFound: ("आपकी डिलीवरी के बारे में", "आपका राइडर आपका पता नहीं ढूँढ पा रहा"),
            NotificationKey.deliveryProblem: (
                "आपकी डिलीवरी के बारे में", "आपके राइडर ने आपकी डिलीवरी में एक समस्या बताई है"
            ),
            NotificationKey.wrongAddress: (
                "आपकी डिलीवरी के बारे में", "आपके ऑर्डर का पता गलत लग रहा है। कृपया फ़ोन उठाएँ।"
            ),
            NotificationKey.storeClosed: (
                "आपकी डिलीवरी के बारे में", "स्टोर बंद है, इसलिए आपके ऑर्डर में देर होगी। हम आपसे संपर्क करेंगे।"
            ),
            NotificationKey.orderNotReadyAtStore: (
                "आपकी डिलीवरी के बारे में", "आपका ऑर्डर स्टोर पर अभी तैयार नहीं है, इसलिए थोड़ी देर होगी।"
            ),
            NotificationKey.riderVehicleTrouble: (
                "आपकी डिलीवरी के बारे में", "आपके राइडर की गाड़ी में खराबी है, इसलिए ऑर्डर में देर हो सकती है।"
            ),
            ReassignReason.riderDelayed.notificationKey: (
                "ऑर्डर दूसरे राइडर को दिया गया",
                "पिकअप में देर हो रही थी, इसलिए ऑर्डर {reference} दूसरे राइडर को दिया गया। इसे पिकअप न करें।"
            ),
            ReassignReason.closerRider.notificationKey: (
                "ऑर्डर दूसरे राइडर को दिया गया",
                "ऑर्डर {reference} स्टोर के ज़्यादा पास वाले राइडर को दिया गया। इसे पिकअप न करें।"
            ),
            ReassignReason.riderProblem.notificationKey: (
                "ऑर्डर दूसरे राइडर को दिया गया",
                "आपकी बताई समस्या के बाद ऑर्डर {reference} दूसरे राइडर को दिया गया। इसे पिकअप न करें।"
            ),
            ReassignReason.planChanged.notificationKey: (
                "ऑर्डर दूसरे राइडर को दिया गया",
                "स्टोर या ग्राहक ने योजना बदली, इसलिए ऑर्डर {reference} दूसरे राइडर को दिया गया। इसे पिकअप न करें।"
            ),
            ReassignReason.other.notificationKey: (
                "ऑर्डर दूसरे राइडर को दिया गया",
                "डिस्पैचर ने योजना बदली: ऑर्डर {reference} दूसरे राइडर को दिया गया। इसे पिकअप न करें।"
            ),
        ],
        // Marathi, for the Mumbai pilot.
        "mr": [
            NotificationKey.orderReceived: ("ऑर्डर मिळाली", "{vendor} कडून तुमची ऑर्डर आम्हाला मिळाली आहे."),
            NotificationKey.riderAssigned: ("रायडर नेमला", "तुमच्या ऑर्डरसाठी रायडर नेमला गेला आहे"),
            NotificationKey.pickedUp: ("वाटेवर आहे", "तुमची ऑर्डर पिकअप झाली आहे आणि वाटेवर आहे."),
            NotificationKey.riderArrived: ("तुमचा रायडर पोहोचला आहे!", "तुमचा रायडर पोहोचला आहे!"),
            NotificationKey.delivered: ("डिलिव्हर झाली", "तुमची ऑर्डर डिलिव्हर झाली आहे."),
            NotificationKey.deliveryFailed: (
                "डिलिव्हरी होऊ शकली नाही", "आम्ही तुमची ऑर्डर डिलिव्हर करू शकलो नाही. आम्ही तुमच्याशी संपर्क करू."
            ),
            NotificationKey.orderCancelled: ("ऑर्डर रद्द", "तुमची ऑर्डर रद्द करण्यात आली आहे."),
            NotificationKey.customerUnavailable: (
                "तुमच्या डिलिव्हरीबद्दल", "तुमचा रायडर तुमच्या पत्त्यावर आहे आणि तुमच्याशी संपर्क होत नाही"
            ),
            NotificationKey.addressNotFound: ("तुमच्या डिलिव्हरीबद्दल", "तुमच्या रायडरला तुमचा पत्ता सापडत नाही"),
            NotificationKey.deliveryProblem: (
                "तुमच्या डिलिव्हरीबद्दल", "तुमच्या रायडरने तुमच्या डिलिव्हरीत एक अडचण सांगितली आहे"
            ),
            NotificationKey.wrongAddress: (
                "तुमच्या डिलिव्हरीबद्दल", "तुमच्या ऑर्डरचा पत्ता चुकीचा वाटतो. कृपया फोन उचला."
            ),
            NotificationKey.storeClosed: (
                "तुमच्या डिलिव्हरीबद्दल", "स्टोअर बंद आहे, त्यामुळे तुमच्या ऑर्डरला उशीर होईल. आम्ही तुमच्याशी संपर्क करू."
            ),
            NotificationKey.orderNotReadyAtStore: (
                "तुमच्या डिलिव्हरीबद्दल", "तुमची ऑर्डर स्टोअरमध्ये अजून तयार नाही, त्यामुळे थोडा उशीर होईल."
            ),
            NotificationKey.riderVehicleTrouble: (
                "तुमच्या डिलिव्हरीबद्दल", "तुमच्या रायडरच्या गाडीत बिघाड आहे, त्यामुळे ऑर्डरला उशीर होऊ शकतो."
            ),
            ReassignReason.riderDelayed.notificationKey: (
                "ऑर्डर दुसऱ्या रायडरला दिली",
                "पिकअपला उशीर होत होता, म्हणून ऑर्डर {reference} दुसऱ्या रायडरला दिली. ती पिकअप करू नका."
            ),
            ReassignReason.closerRider.notificationKey: (
                "ऑर्डर दुसऱ्या रायडरला दिली",
                "ऑर्डर {reference} स्टोअरच्या जवळ असलेल्या रायडरला दिली. ती पिकअप करू नका."
            ),
            ReassignReason.riderProblem.notificationKey: (
                "ऑर्डर दुसऱ्या रायडरला दिली",
                "तुम्ही सांगितलेल्या अडचणीनंतर ऑर्डर {reference} दुसऱ्या रायडरला दिली. ती पिकअप करू नका."
            ),
            ReassignReason.planChanged.notificationKey: (
                "ऑर्डर दुसऱ्या रायडरला दिली",
                "स्टोअर किंवा ग्राहकाने योजना बदलली, म्हणून ऑर्डर {reference} दुसऱ्या रायडरला दिली. ती पिकअप करू नका."
            ),
            ReassignReason.other.notificationKey: (
                "ऑर्डर दुसऱ्या रायडरला दिली",
                "डिस्पॅचरने योजना बदलली: ऑर्डर {reference} दुसऱ्या रायडरला दिली. ती पिकअप करू नका."
            ),
        ],
    ]

    /// The words of text messages to customers (SMS, WhatsApp), by the push texts' keys: a text has no title and
    /// no app name beside it, so each starts with who it is from (`{sender}`). `CustomerTexts` fills them.
    static let textMessages: [String: [String: String]] = [
        "en": [
            NotificationKey.orderReceived: "{sender}: We have your {vendor} order. Track it: {link}",
            NotificationKey.riderAssigned: "{sender}: {rider} is bringing your {vendor} order. Track it: {link}",
            NotificationKey.pickedUp: "{sender}: Your {vendor} order is on its way. Track it: {link}",
            // The requirement's words for the code; no store name, so the code and the link fit one segment.
            NotificationKey.pickedUp + ".code":
                "{sender}: On its way! Share code {code} with your rider. Track: {link}",
            NotificationKey.riderArrived: "{sender}: Your rider has arrived!",
            NotificationKey.riderArrived + ".code": "{sender}: Your rider has arrived! Share code {code} with them.",
            NotificationKey.delivered: "{sender}: Your {vendor} order was delivered at {time}. Proof: {link}",
            NotificationKey.deliveryFailed:
                "{sender}: We could not deliver your {vendor} order: {reason}. We will contact you.",
            NotificationKey.orderCancelled: "{sender}: Your {vendor} order was cancelled {by}.",
            NotificationKey.customerUnavailable:
                "{sender}: Your rider is at your door and can't reach you. Please answer your phone.",
            NotificationKey.addressNotFound:
                "{sender}: Your rider can't find your address. Please answer your phone.",
            NotificationKey.deliveryProblem: "{sender}: Your rider reported a problem with your delivery.",
            NotificationKey.orderReturning: "{sender}: Your {vendor} order is going back to the store: {reason}",
            NotificationKey.orderReturned: "{sender}: Your order is back at {vendor}.",
            "reason.CUSTOMER_UNAVAILABLE": "we could not reach you",
            "reason.ADDRESS_NOT_FOUND": "we could not find your address",
            "reason.OTHER": "there was a problem on the way",
            NotificationKey.wrongAddress:
                "{sender}: The address on your order seems wrong. Please answer your phone.",
            NotificationKey.storeClosed:
                "{sender}: The store is closed, so your {vendor} order is delayed. We will contact you.",
            NotificationKey.orderNotReadyAtStore:
                "{sender}: Your {vendor} order is not ready yet, so it will be a little late.",
            NotificationKey.riderVehicleTrouble:
                "{sender}: Your rider has vehicle trouble, so your {vendor} order may be late.",
            "reason.WRONG_ADDRESS": "the address seems wrong",
            "reason.STORE_CLOSED": "the store was closed",
            "reason.ORDER_NOT_READY": "the order was not ready",
            "reason.VEHICLE_TROUBLE": "the rider had vehicle trouble",
            "reason.UNSAFE": "the rider could not go on safely",
            "reason.ORDER_DAMAGED": "the order was damaged on the way",
            "reason.CUSTOMER_REQUEST": "you asked us to",
            "by.customer": "at your request",
            "by.vendor": "by the store",
            "by.staff": "by our team",
            "yourRider": "Your rider",
        ],
        "hi": [
            NotificationKey.orderReceived: "{sender}: आपका {vendor} ऑर्डर हमें मिल गया है। ट्रैक करें: {link}",
            NotificationKey.riderAssigned: "{sender}: {rider} आपका {vendor} ऑर्डर ला रहे हैं। ट्रैक करें: {link}",
            NotificationKey.pickedUp: "{sender}: आपका {vendor} ऑर्डर रास्ते में है। ट्रैक करें: {link}",
            NotificationKey.pickedUp + ".code": "{sender}: ऑर्डर रास्ते में है! राइडर को कोड {code} बताएँ। ट्रैक करें: {link}",
            NotificationKey.riderArrived: "{sender}: आपका राइडर पहुँच गया है!",
            NotificationKey.riderArrived + ".code": "{sender}: आपका राइडर पहुँच गया है! उन्हें कोड {code} बताएँ।",
            NotificationKey.delivered: "{sender}: आपका {vendor} ऑर्डर {time} बजे डिलीवर हो गया। सबूत: {link}",
            NotificationKey.deliveryFailed:
                "{sender}: हम आपका {vendor} ऑर्डर डिलीवर नहीं कर सके: {reason}। हम आपसे संपर्क करेंगे।",
            NotificationKey.orderCancelled: "{sender}: आपका {vendor} ऑर्डर {by} रद्द कर दिया गया।",
            NotificationKey.customerUnavailable:
                "{sender}: आपका राइडर आपके दरवाज़े पर है और आपसे संपर्क नहीं कर पा रहा। कृपया फ़ोन उठाएँ।",
            NotificationKey.addressNotFound: "{sender}: आपका राइडर आपका पता नहीं ढूँढ पा रहा। कृपया फ़ोन उठाएँ।",
            NotificationKey.deliveryProblem: "{sender}: आपके राइडर ने आपकी डिलीवरी में एक समस्या बताई है।",
            "reason.CUSTOMER_UNAVAILABLE": "हम आपसे संपर्क नहीं कर सके",
            "reason.ADDRESS_NOT_FOUND": "हमें आपका पता नहीं मिला",
            "reason.OTHER": "रास्ते में कोई समस्या आई",
            NotificationKey.wrongAddress: "{sender}: आपके ऑर्डर का पता गलत लग रहा है। कृपया फ़ोन उठाएँ।",
            NotificationKey.storeClosed:
                "{sender}: स्टोर बंद है, इसलिए आपके {vendor} ऑर्डर में देर होगी। हम आपसे संपर्क करेंगे।",
            NotificationKey.orderNotReadyAtStore:
                "{sender}: आपका {vendor} ऑर्डर अभी तैयार नहीं है, इसलिए थोड़ी देर होगी।",
            NotificationKey.riderVehicleTrouble:
                "{sender}: आपके राइडर की गाड़ी में खराबी है, इसलिए आपके {vendor} ऑर्डर में देर हो सकती है।",
            "reason.WRONG_ADDRESS": "पता गलत लग रहा था",
            "reason.STORE_CLOSED": "स्टोर बंद था",
            "reason.ORDER_NOT_READY": "ऑर्डर तैयार नहीं था",
            "reason.VEHICLE_TROUBLE": "राइडर की गाड़ी में खराबी थी",
            "reason.UNSAFE": "राइडर सुरक्षित रूप से आगे नहीं जा सका",
            "reason.ORDER_DAMAGED": "रास्ते में ऑर्डर खराब हो गया",
            "reason.CUSTOMER_REQUEST": "आपके कहने पर",
            "by.customer": "आपके कहने पर",
            "by.vendor": "स्टोर द्वारा",
            "by.staff": "हमारी टीम द्वारा",
            "yourRider": "आपका राइडर",
        ],
        "mr": [
            NotificationKey.orderReceived: "{sender}: तुमची {vendor} ऑर्डर आम्हाला मिळाली. ट्रॅक करा: {link}",
            NotificationKey.riderAssigned: "{sender}: {rider} तुमची {vendor} ऑर्डर आणत आहेत. ट्रॅक करा: {link}",
            NotificationKey.pickedUp: "{sender}: तुमची {vendor} ऑर्डर वाटेवर आहे. ट्रॅक करा: {link}",
            NotificationKey.pickedUp + ".code": "{sender}: ऑर्डर वाटेवर आहे! रायडरला कोड {code} सांगा. ट्रॅक करा: {link}",
            NotificationKey.riderArrived: "{sender}: तुमचा रायडर पोहोचला आहे!",
            NotificationKey.riderArrived + ".code": "{sender}: तुमचा रायडर पोहोचला आहे! त्यांना कोड {code} सांगा.",
            NotificationKey.delivered: "{sender}: तुमची {vendor} ऑर्डर {time} वाजता डिलिव्हर झाली. पुरावा: {link}",
            NotificationKey.deliveryFailed:
                "{sender}: आम्ही तुमची {vendor} ऑर्डर डिलिव्हर करू शकलो नाही: {reason}. आम्ही तुमच्याशी संपर्क करू.",
            NotificationKey.orderCancelled: "{sender}: तुमची {vendor} ऑर्डर {by} रद्द करण्यात आली.",
            NotificationKey.customerUnavailable:
                "{sender}: तुमचा रायडर तुमच्या दारात आहे आणि तुमच्याशी संपर्क होत नाही. कृपया फोन उचला.",
            NotificationKey.addressNotFound: "{sender}: तुमच्या रायडरला तुमचा पत्ता सापडत नाही. कृपया फोन उचला.",
            NotificationKey.deliveryProblem: "{sender}: तुमच्या रायडरने तुमच्या डिलिव्हरीत एक अडचण सांगितली आहे.",
            "reason.CUSTOMER_UNAVAILABLE": "आम्ही तुमच्याशी संपर्क करू शकलो नाही",
            "reason.ADDRESS_NOT_FOUND": "आम्हाला तुमचा पत्ता सापडला नाही",
            "reason.OTHER": "वाटेत अडचण आली",
            NotificationKey.wrongAddress: "{sender}: तुमच्या ऑर्डरचा पत्ता चुकीचा वाटतो. कृपया फोन उचला.",
            NotificationKey.storeClosed:
                "{sender}: स्टोअर बंद आहे, त्यामुळे तुमच्या {vendor} ऑर्डरला उशीर होईल. आम्ही तुमच्याशी संपर्क करू.",
            NotificationKey.orderNotReadyAtStore:
                "{sender}: तुमची {vendor} ऑर्डर अजून तयार नाही, त्यामुळे थोडा उशीर होईल.",
            NotificationKey.riderVehicleTrouble:
                "{sender}: तुमच्या रायडरच्या गाडीत बिघाड आहे, त्यामुळे तुमच्या {vendor} ऑर्डरला उशीर होऊ शकतो.",
            "reason.WRONG_ADDRESS": "पत्ता चुकीचा वाटला",
            "reason.STORE_CLOSED": "स्टोअर बंद होते",
            "reason.ORDER_NOT_READY": "ऑर्डर तयार नव्हती",
            "reason.VEHICLE_TROUBLE": "रायडरच्या गाडीत बिघाड होता",
            "reason.UNSAFE": "रायडर सुरक्षितपणे पुढे जाऊ शकला नाही",
            "reason.ORDER_DAMAGED": "वाटेत ऑर्डर खराब झाली",
            "reason.CUSTOMER_REQUEST": "तुमच्या सांगण्यावरून",
            "by.customer": "तुमच्या विनंतीवरून",
            "by.vendor": "स्टोअरकडून",
            "by.staff": "आमच्या टीमकडून",
            "yourRider": "तुमचा रायडर",
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
    /// The first message: the order is placed, with the link to follow it.
    public static let orderReceived = "customer.orderReceived"
    public static let riderAssigned = "customer.riderAssigned"
    public static let pickedUp = "customer.pickedUp"
    public static let riderArrived = "customer.riderArrived"
    public static let delivered = "customer.delivered"
    public static let deliveryFailed = "customer.deliveryFailed"
    public static let orderCancelled = "customer.orderCancelled"
    public static let customerUnavailable = "customer.customerUnavailable"
    public static let addressNotFound = "customer.addressNotFound"
    public static let deliveryProblem = "customer.deliveryProblem"
    /// Problems a rider reports that the customer hears of, each in fixed words (never the rider's note).
    public static let wrongAddress = "customer.wrongAddress"
    public static let storeClosed = "customer.storeClosed"
    public static let orderNotReadyAtStore = "customer.orderNotReadyAtStore"
    public static let riderVehicleTrouble = "customer.riderVehicleTrouble"
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
    /// The store took its "Ready" back within the minute it may: the rider on the way waits for it again.
    public static let orderNotReady = "rider.orderNotReady"
}

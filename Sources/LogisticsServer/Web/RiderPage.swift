import Foundation
import Hummingbird
import LogisticsCore

/// `GET /rider`: the rider's installable web app. The page holds no data: it signs in with the rider's token (from
/// `#token=…` or a paste box, kept in sessionStorage) and uses only the rider API. The HTML is `rider.html` from the
/// assets with the page's words (by `Accept-Language`) and the numbers the app shares with RiderKit filled in; the
/// service worker that keeps the app shell for offline starts is served from the root so it may control `/rider`.
struct RiderPage {
    let tileServer: RasterTileServer?
    /// `logistics demo`: the app offers "Simulate my drive", for desktop browsers without GPS.
    let demo: Bool
    /// The city's phone number to show as an example (`LOGISTICS_PHONE_EXAMPLE`), if the operator gave one.
    var phoneExample: String? = nil

    /// What the page decides on the phone, with the same values RiderKit uses (`RiderAppRules`).
    struct Settings: Encodable {
        var demo: Bool
        var gpsLostAfterS = RiderAppRules.gpsLostAfterSeconds
        var offRouteM = RiderAppRules.offRouteDistanceM
        var offRouteFixes = RiderAppRules.offRouteFixes
        /// The task's statuses as the server has them: a task comes with its own `allowedNext`, and a tap still
        /// waiting in the offline queue moves the status on the phone alone; what follows that status, where the
        /// rider heads and whether it ends the task come from here rather than a copy in the script.
        var statuses = Dictionary(uniqueKeysWithValues: TaskStatus.allCases.map { ($0.rawValue, StatusRule($0)) })
        /// An online rider's position goes to the server at least this often, standing still too: the dispatcher
        /// sees a rider as stale only well past it.
        var positionEveryS = Int(RiderPositionFreshness.heartbeatSeconds)
        /// The problems a rider may report, in the order offered, when each is offered and when the customer is told of
        /// each (the server's rule, so the app's question says who will hear of it).
        var issues = DeliveryIssueType.allCases.map(IssueKind.init)
    }

    struct IssueKind: Encodable {
        var type: DeliveryIssueType
        /// The statuses in which the app offers it.
        var offeredIn: [TaskStatus]
        var tellsCustomerIn: [TaskStatus]

        init(_ type: DeliveryIssueType) {
            self.type = type
            let open = TaskStatus.allCases.filter { !$0.isFinal }
            offeredIn = open.filter(type.fits)
            tellsCustomerIn = open.filter { type.customerNotice(at: $0) != nil }
        }
    }

    struct StatusRule: Encodable {
        var allowedNext: [TaskStatus]
        var nextStop: StopKind?
        var isFinal: Bool

        init(_ status: TaskStatus) {
            allowedNext = status.allowedNext
            nextStop = status.nextStop
            isFinal = status.isFinal
        }
    }

    func register(on router: Router<LogisticsRequestContext>) {
        var pages: [String: WebAsset] = [:]
        for language in RiderAppText.languages {
            pages[language] = WebPage.fixed(
                "rider-\(language).html",
                html: Self.html(language: language, demo: demo, tileServer: tileServer, phoneExample: phoneExample),
                tileServer: tileServer)
        }
        router.get("/rider") { [pages] request, _ in
            let language = WebPage.language(request.headers[.acceptLanguage], among: RiderAppText.languages)
            return (pages[language] ?? pages["en"]!).response(for: request)
        }
        // A worker's scope may not reach above its own path: from the root it may control `/rider`.
        let worker = WebAsset(
            name: "rider-sw.js", contentType: WebAssets.contentType(of: "rider-sw.js"),
            data: WebAssets["Rider/rider-sw.js"].body.plain, cacheControl: "no-cache")
        router.get("/rider-sw.js") { request, _ in worker.response(for: request) }
    }

    static func html(language: String, demo: Bool, tileServer: RasterTileServer?, phoneExample: String? = nil)
        -> String
    {
        let settings = Settings(demo: demo)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func json(_ value: some Encodable) -> String {
            WebPage.escape(String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self))
        }
        return WebPage.render(
            "Rider/rider.html",
            [
                "lang": language, "texts": json(RiderAppText.all(language)), "config": json(settings),
                "tileAttribute": WebPage.tileAttribute(tileServer),
                "phoneExample": WebPage.escape(phoneExample ?? ""),
            ])
    }
}

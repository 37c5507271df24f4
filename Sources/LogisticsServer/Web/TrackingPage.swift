import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// `GET /track/{trackingToken}`: the customer's live map, reached from a tracking link without signing in. The
/// page is HTML and our own script; it follows the order's WebSocket stream with the link's token. After delivery
/// the same link shows the proof and takes the rating (`TrackingOutcome`).
struct TrackingPage {
    let linkAccess: TrackingLinkAccess
    let snapshots: TrackingSnapshots
    let riders: any RiderRepository
    let otp: DeliveryOTP
    let outcome: TrackingOutcome
    let tileServer: RasterTileServer?

    /// The page and its assets on the router; the snapshot, an API answer, in the route table the OpenAPI document
    /// is checked against.
    func register(on router: Router<LogisticsRequestContext>, in routes: inout RouteTable) {
        router.get("/track/{token}") { request, context in try await page(request, context: context) }
        routes.get("/track/{token}/snapshot") { _, context in try await snapshot(context: context) }
        outcome.register(in: &routes)
    }

    private func link(_ context: LogisticsRequestContext) async throws -> TrackingLinkAccess.Resolution {
        guard let token = context.parameters.get("token") else { return .unknown }
        return try await linkAccess.resolve(token)
    }

    /// The tracking snapshot for the link's holder (the page refreshes its ETA and distance with it): the same
    /// document as `GET /api/v1/customer/orders/{orderId}/tracking`, authorised by the link instead of a sign-in.
    func snapshot(context: LogisticsRequestContext) async throws -> APIResponse {
        guard let token = context.parameters.get("token") else { throw LogisticsError.notFound("tracking link") }
        let (order, _) = try await linkAccess.order(token)
        var response = try APIResponse.json(try await snapshots.snapshot(of: order))
        WebPage.secure(&response)
        response.extraHeaders[.cacheControl] = "no-store"
        return response
    }

    func page(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        var language = WebPage.language(request.headers[.acceptLanguage])
        var text = PageText.all(language)
        func notice(_ title: String, _ body: String, _ status: HTTPResponse.Status) -> APIResponse {
            WebPage.html(Self.noticePage(language: language, title: title, body: body), status: status)
        }
        // A page, not an API: a database that cannot answer gets the same readable page as a bad link.
        let order: Order
        let token = context.parameters.get("token") ?? ""
        switch (try? await link(context)) ?? .unknown {
        case .open(let linked, _): order = linked
        case .unknown: return notice(text["notFoundTitle"]!, text["notFound"]!, .notFound)
        case .revoked: return notice(text["notFoundTitle"]!, text["notFound"]!, .forbidden)
        // Past the link's time nothing about the order is shown, its outcome included.
        case .expired: return notice(text["notFoundTitle"]!, text["notFound"]!, .gone)
        }
        // The language the store gave for its customer speaks for the customer better than a borrowed phone's.
        if let preferred = order.customer.locale.map(NotificationCatalog.languageCode),
            PageText.languages.contains(preferred)
        {
            language = preferred
            text = PageText.all(preferred)
        }
        let store = order.vendor.name
        let summary = NotificationCatalog.fill(
            order.externalRef == nil ? text["orderFromStore"]! : text["orderFrom"]!,
            ["ref": order.externalRef ?? "", "store": store])
        // Over (or on its way back to the store): how it ended, when, and from where, without the live page.
        if TrackingChannel.endsTracking(order.status) {
            let status = text[order.status.rawValue] ?? text["ended"]!
            // Who brought it stays on the page after the end, as it was while it was under way.
            let details =
                Self.endedDetails(order: order, status: status, summary: summary, text: text)
                + (await riderLine(order, text: text))
            // Delivered: the proof and the rating, for as long as the link lasts.
            if order.status == .delivered,
                let afterDelivery = try? await outcome.section(of: order, token: token, text: text)
            {
                return WebPage.html(
                    WebPage.render(
                        "Tracking/track-delivered.html",
                        [
                            "lang": language, "title": WebPage.escape(text["endedTitle"]!),
                            "body": WebPage.escape(status), "details": details, "afterDelivery": afterDelivery,
                        ]))
            }
            return WebPage.html(
                Self.noticePage(language: language, title: text["endedTitle"]!, body: status, details: details),
                status: order.status.isFinal ? .gone : .ok)
        }
        let textsJSON = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
        let trackable = TrackingChannel.isTrackable(order.status)
        let riderLine = await riderLine(order, text: text)
        return WebPage.html(
            WebPage.render(
                "Tracking/track.html",
                // The code appears once the parcel is on its way; a page opened earlier reloads for it then.
                deliveryCode(order, trackable: trackable, text: text).merging(

                    [
                        "lang": language, "title": WebPage.escape(text["title"]!),
                        // The status in words at once: before pickup there is nothing else to show.
                        "loading": WebPage.escape(
                            trackable
                                ? text["loading"]!
                                : NotificationCatalog.fill(
                                    text[order.status.rawValue] ?? text["loading"]!, ["store": store])),
                        "summary": WebPage.escape(summary), "store": WebPage.escape(store),
                        "mapHidden": trackable ? "" : " hidden", "mapLaterHidden": trackable ? " hidden" : "",
                        "mapLater": WebPage.escape(text["mapLater"]!),
                        "attribution": WebPage.escape(text["attribution"]!),
                        "tileAttribute": WebPage.tileAttribute(tileServer),
                        "orderId": order.id.lowercased, "texts": WebPage.escape(textsJSON), "riderLine": riderLine,
                    ]) { code, _ in code }), tileServer: tileServer)
    }

    /// Customers are told who is coming (and who came): the rider's first name only; nothing before a rider has it.
    private func riderLine(_ order: Order, text: [String: String]) async -> String {
        guard let riderId = order.assignedRiderId, let rider = try? await riders.rider(id: riderId),
            let firstName = rider.firstName
        else { return "" }
        return #"<p id="rider" class="rider">"#
            + WebPage.escape(NotificationCatalog.fill(text["rider"]!, ["name": firstName])) + "</p>"
    }

    /// The delivery code line for an OTP order on its way (the link is the customer's, who tells the rider the code),
    /// and whether the page must reload to show it once the order is picked up.
    private func deliveryCode(_ order: Order, trackable: Bool, text: [String: String]) -> [String: String] {
        guard order.podType == .otp, let seed = order.otpSeed else { return ["codeLine": "", "codeLater": "false"] }
        guard trackable else { return ["codeLine": "", "codeLater": "true"] }
        let code = otp.code(orderId: order.id, seed: seed, storedHash: order.otpHash)
        let parts = WebPage.escape(NotificationCatalog.fill(text["shareCode"]!, ["code": "\u{1}"]))
            .components(separatedBy: "\u{1}")
        return [
            "codeLine": #"<p id="delivery-code" class="code">"#
                + parts.joined(separator: #"<strong>\#(WebPage.escape(code))</strong>"#) + "</p>",
            "codeLater": "false",
        ]
    }

    /// `details`: HTML already escaped, under the body.
    static func noticePage(language: String, title: String, body: String, details: String = "") -> String {
        WebPage.render(
            "Tracking/track-notice.html",
            ["lang": language, "title": WebPage.escape(title), "body": WebPage.escape(body), "details": details])
    }

    /// When the order ended (local time in the customer's browser, UTC until its script runs), the store and the
    /// reference.
    static func endedDetails(order: Order, status: String, summary: String, text: [String: String]) -> String {
        let iso = RFC3339.string(from: order.updatedAt)
        let utc =
            ISO8601DateFormatter.string(
                from: order.updatedAt, timeZone: TimeZone(identifier: "UTC")!,
                formatOptions: [.withTime, .withColonSeparatorInTime]
            ).prefix(5) + " UTC"
        let when = NotificationCatalog.fill(text["endedAt"]!, ["status": status, "time": "\u{1}"])
        let parts = WebPage.escape(when).components(separatedBy: "\u{1}")
        let time = #"<time datetime="\#(iso)">\#(utc)</time>"#
        return #"<p class="ended-at">"# + parts.joined(separator: time) + "</p>"
            + #"<p class="ended-order">"# + WebPage.escape(summary) + "</p>"
    }
}

import Foundation
import Hummingbird
import LogisticsCore

/// `GET /track/{trackingToken}`: the customer's live map, reached from a tracking link without signing in. The
/// page is HTML and our own script; it follows the order's WebSocket stream with the link's token.
struct TrackingPage {
    let services: LogisticsServices

    /// The page and its assets on the router; the snapshot, an API answer, in the route table the OpenAPI document
    /// is checked against.
    func register(on router: Router<LogisticsRequestContext>, in routes: inout RouteTable) {
        router.get("/track/{token}") { request, context in try await page(request, context: context) }
        routes.get("/track/{token}/snapshot") { _, context in try await snapshot(context: context) }
    }

    var tileServer: RasterTileServer? { services.configuration.tileServer }

    private func link(_ context: LogisticsRequestContext) async throws -> TrackingLinkAccess.Resolution {
        guard let token = context.parameters.get("token") else { return .unknown }
        return try await TrackingLinkAccess(services: services).resolve(token)
    }

    /// The tracking snapshot for the link's holder (the page refreshes its ETA and distance with it): the same
    /// document as `GET /api/v1/customer/orders/{orderId}/tracking`, authorised by the link instead of a sign-in.
    func snapshot(context: LogisticsRequestContext) async throws -> APIResponse {
        guard let token = context.parameters.get("token") else { throw LogisticsError.notFound("tracking link") }
        let (order, _) = try await TrackingLinkAccess(services: services).order(token)
        var response = try APIResponse.json(try await TrackingRoutes.snapshot(of: order, services: services))
        WebPage.secure(&response)
        response.extraHeaders[.cacheControl] = "no-store"
        return response
    }

    func page(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let language = WebPage.language(request.headers[.acceptLanguage])
        let text = PageText.all(language)
        func notice(_ title: String, _ body: String, _ status: HTTPResponse.Status) -> APIResponse {
            WebPage.html(Self.noticePage(language: language, title: title, body: body), status: status)
        }
        // A page, not an API: a database that cannot answer gets the same readable page as a bad link.
        let order: Order
        switch (try? await link(context)) ?? .unknown {
        case .open(let linked, _): order = linked
        case .unknown: return notice(text["notFoundTitle"]!, text["notFound"]!, .notFound)
        case .revoked: return notice(text["notFoundTitle"]!, text["notFound"]!, .forbidden)
        // Past the link's time nothing about the order is shown, its outcome included.
        case .expired: return notice(text["notFoundTitle"]!, text["notFound"]!, .gone)
        }
        if order.status.isFinal {
            return notice(text["endedTitle"]!, text[order.status.rawValue] ?? text["ended"]!, .gone)
        }
        let textsJSON = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
        // Customers are told who is coming: the rider's first name only.
        var riderLine = ""
        if let riderId = order.assignedRiderId, let rider = try? await services.repository.rider(id: riderId),
            let firstName = rider.name?.split(separator: " ").first
        {
            riderLine =
                #"<p id="rider" class="rider">"#
                + WebPage.escape(NotificationCatalog.fill(text["rider"]!, ["name": String(firstName)])) + "</p>"
        }
        return WebPage.html(
            WebPage.render(
                "track.html",
                [
                    "lang": language, "title": WebPage.escape(text["title"]!),
                    "loading": WebPage.escape(text["loading"]!),
                    "attribution": WebPage.escape(text["attribution"]!),
                    "tileAttribute": WebPage.tileAttribute(tileServer),
                    "orderId": order.id.lowercased, "texts": WebPage.escape(textsJSON), "riderLine": riderLine,
                ]), tileServer: tileServer)
    }

    static func noticePage(language: String, title: String, body: String) -> String {
        WebPage.render(
            "track-notice.html", ["lang": language, "title": WebPage.escape(title), "body": WebPage.escape(body)])
    }
}

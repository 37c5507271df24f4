import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// The customer's tracking page and the dispatcher's page as HTTP sees them (Tests/Browser drives them in chromium).
@Suite("The tracking page", .timeLimit(.minutes(3)))
struct TrackingPageTests {
    static let csp =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; "
        + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    static func expectSecured(_ reply: Reply, _ what: String) {
        #expect(reply.headers[.init("Content-Security-Policy")!] == csp, "\(what)")
        #expect(reply.headers[.init("X-Content-Type-Options")!] == "nosniff", "\(what)")
        #expect(reply.headers[.init("Referrer-Policy")!] == "no-referrer", "\(what)")
    }

    @Test(
        "a tracking link opens an HTML page with its scripts from this origin only; bad and ended links get HTML errors"
    )
    func page() async throws {
        try await TestServer.run(.sqlite) { server in
            let (scenario, _, taskId) = try await DeliveryScenario.inTransit(server)
            let link = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.customer)
            let token = try #require(link["token"] as? String)

            let page = try await server.send(.get, "/track/\(token)")
            #expect(page.status == 200)
            #expect(page.contentType == "text/html; charset=utf-8")
            #expect(page.headers[.cacheControl] == "no-store")
            Self.expectSecured(page, "page")
            #expect(page.text.contains(#"data-order-id="\#(scenario.orderId)""#))
            #expect(page.text.contains(#"<script type="module" src="/web/Tracking/track.js"></script>"#))
            #expect(page.text.contains("© OpenStreetMap contributors"))
            #expect(page.text.contains(#"aria-live="polite""#))
            #expect(!page.text.contains("<script>"), "no inline script")
            #expect(!page.text.contains("http://") && !page.text.contains("https://"), "nothing from elsewhere")

            let hindi = try await server.send(
                .get, "/track/\(token)", headers: ["Accept-Language": "hi-IN,hi;q=0.9,en;q=0.8"])
            #expect(hindi.text.contains(#"<html lang="hi">"#))
            #expect(hindi.text.contains("अपना ऑर्डर ट्रैक करें"))
            #expect(hindi.text.contains("रास्ते में है"), "statuses in the notification catalog's words")
            #expect(page.text.contains(#"<p id="rider" class="rider">Your rider: Test</p>"#), "first name only")

            // The link's own snapshot, for the page's ETA and distance: JSON, no sign-in, nothing for a bad link.
            let snapshot = try await server.send(.get, "/track/\(token)/snapshot")
            #expect(snapshot.status == 200)
            #expect(snapshot["type"] as? String == "snapshot")
            #expect(snapshot["status"] as? String == "IN_TRANSIT")
            #expect(snapshot.headers[.cacheControl] == "no-store")
            let badSnapshot = try await server.send(
                .get, "/track/\(TrackingLinksFixture.unknownOrderToken(server))/snapshot")
            #expect(badSnapshot.status == 404)
            #expect(badSnapshot.contentType == "application/problem+json")

            let dispatch = try await server.send(.get, "/dispatch")
            #expect(dispatch.status == 200)
            #expect(dispatch.contentType == "text/html; charset=utf-8")
            Self.expectSecured(dispatch, "dispatch page")
            #expect(!dispatch.text.contains("<script>"), "no inline script")

            for (name, type) in [
                ("Tracking/track.js", "text/javascript; charset=utf-8"),
                ("Shared/map.js", "text/javascript; charset=utf-8"),
                ("Tracking/track.css", "text/css; charset=utf-8"),
                ("Dispatch/dispatch.js", "text/javascript; charset=utf-8"),
                ("Dispatch/dispatch.css", "text/css; charset=utf-8"),
            ] {
                let asset = try await server.send(.get, "/web/\(name)")
                #expect(asset.status == 200, "\(name)")
                #expect(asset.contentType == type)
                #expect(asset.headers[.eTag] != nil)
                Self.expectSecured(asset, name)
                #expect(
                    !asset.text.contains("http://") && !asset.text.contains("https://"), "\(name) calls no other host")
            }

            for bad in ["nope", TrackingLinksFixture.tampered(token), TrackingLinksFixture.unknownOrderToken(server)] {
                let reply = try await server.send(.get, "/track/\(bad)")
                #expect(reply.status == 404, "\(bad)")
                #expect(reply.contentType == "text/html; charset=utf-8")
                #expect(reply.text.contains("This tracking link does not work"))
                Self.expectSecured(reply, "404")
            }

            let ended = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/cancel", token: scenario.dispatcher, json: ["reason": "test"]
            )
            #expect(ended.status == 200, "\(ended.text) \(taskId)")
            let gone = try await server.send(.get, "/track/\(token)")
            #expect(gone.status == 410)
            #expect(gone.contentType == "text/html; charset=utf-8")
            #expect(gone.text.contains("This delivery has ended"))
            #expect(gone.text.contains("Order cancelled"))
            // More than "ended": when (a time the page's script shows in the customer's zone) and from which store.
            #expect(gone.text.contains(#"Order cancelled at <time datetime=""#), "\(gone.text)")
            #expect(gone.text.contains("Café de Paris") && gone.text.contains("Order EXT-"))
            #expect(gone.text.contains(#"<script type="module" src="/web/Tracking/track-time.js"></script>"#))
            let endedSnapshot = try await server.send(.get, "/track/\(token)/snapshot")
            #expect(endedSnapshot.status == 410)
            #expect(endedSnapshot.code == "TRACKING_ENDED")
        }
    }
}

extension TrackingPageTests {
    @Test("a link made before pickup: its snapshot is 409 TRACKING_NOT_AVAILABLE until the rider has the parcel")
    func snapshotBeforePickup() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let link = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.customer)
            let token = try #require(link["token"] as? String)
            let early = try await server.send(.get, "/track/\(token)/snapshot")
            #expect(early.status == 409)
            #expect(early.code == "TRACKING_NOT_AVAILABLE")
            // The page says where the order is in words, names the store and the reference, and shows no map yet.
            let page = try await server.send(.get, "/track/\(token)")
            #expect(page.status == 200)
            #expect(page.text.contains("Your order is ready; a rider will pick it up soon"), "\(page.text)")
            #expect(page.text.contains("from Café de Paris") && page.text.contains("Order EXT-"))
            #expect(page.text.contains(#"<div id="map-box" hidden>"#))
            #expect(page.text.contains("The map appears here when your rider has picked up the order."))
        }
    }

    @Test("an operator's raster tile server: the pages name its template and their CSP allows its images, nothing more")
    func rasterTileServer() async throws {
        let template = "https://tiles.example.org:8443/osm/{z}/{x}/{y}.png"
        try await TestServer.run(.sqlite, configure: { $0.tileServer = try? RasterTileServer(template: template) }) {
            server in
            let (scenario, _, _) = try await DeliveryScenario.inTransit(server)
            let link = try await server.send(
                .post, "/api/v1/orders/\(scenario.orderId)/tracking-links", token: scenario.customer)
            let token = try #require(link["token"] as? String)
            for path in ["/track/\(token)", "/dispatch"] {
                let page = try await server.send(.get, path)
                #expect(page.text.contains(#"data-tile-url="\#(template)""#), "\(path)")
                #expect(
                    page.headers[.init("Content-Security-Policy")!]
                        == Self.csp.replacingOccurrences(
                            of: "img-src 'self' data: blob:",
                            with: "img-src 'self' data: blob: https://tiles.example.org:8443"),
                    "\(path)")
            }
        }
        #expect(
            try RasterTileServer(template: "http://127.0.0.1:9000/{z}/{x}/{y}.png").origin == "http://127.0.0.1:9000")
        for bad in [
            "tiles.example.org/{z}/{x}/{y}.png", "ftp://tiles.example.org/{z}/{x}/{y}.png",
            "https://tiles.example.org/{z}/{x}.png", "https://tiles.example.org/{z}/{x}/{y}.png?a=\"b\"",
            "https:///{z}/{x}/{y}",
        ] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try RasterTileServer(template: bad) }
        }
        let environment = ServerConfiguration.fromEnvironment
        #expect(throws: ConfigurationError.self) { try environment(["LOGISTICS_TILE_URL": "nonsense"]) }
        #expect(try environment([:]).tileServer == nil)
    }
}

/// A well-formed tracking token for a link that does not exist.
enum TrackingLinksFixture {
    static func unknownOrderToken(_ server: TestServer) -> String {
        server.components.trackingLinks.token(linkId: UUID())
    }

    /// The token with one character of its signature changed, away from the end: replacing the last two with
    /// "AA" left about one token in a thousand as it was, and the test failed.
    static func tampered(_ token: String) -> String {
        var characters = Array(token)
        let index = characters.count - 10
        characters[index] = characters[index] == "A" ? "B" : "A"
        return String(characters)
    }
}

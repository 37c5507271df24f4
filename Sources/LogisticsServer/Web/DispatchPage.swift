import Foundation
import Hummingbird

/// `GET /dispatch`: the dispatcher's live map. The page itself is public and holds no data; everything it shows
/// comes from the API with the dispatcher's token, which the script keeps in sessionStorage (from a sign-in box, or
/// from `#token=…`, which browsers never send to a server).
struct DispatchPage {
    let tileServer: RasterTileServer?

    func register(on router: Router<LogisticsRequestContext>) {
        let page = WebPage.fixed("dispatch.html", html: Self.html(tileServer: tileServer), tileServer: tileServer)
        router.get("/dispatch") { request, _ in page.response(for: request) }
    }

    static func html(tileServer: RasterTileServer?) -> String {
        WebPage.render("Dispatch/dispatch.html", ["tileAttribute": WebPage.tileAttribute(tileServer)])
    }
}

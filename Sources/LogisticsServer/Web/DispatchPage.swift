import Foundation
import Hummingbird

/// `GET /dispatch`: the dispatcher's live map. The page itself is public and holds no data; everything it shows
/// comes from the API with the dispatcher's token, which the script keeps in sessionStorage (from a sign-in box, or
/// from `#token=…`, which browsers never send to a server).
struct DispatchPage {
    let tileServer: RasterTileServer?
    /// The city's phone number to show as an example (`LOGISTICS_PHONE_EXAMPLE`), if the operator gave one.
    var phoneExample: String? = nil

    func register(on router: Router<LogisticsRequestContext>) {
        let page = WebPage.fixed(
            "dispatch.html", html: Self.html(tileServer: tileServer, phoneExample: phoneExample), tileServer: tileServer
        )
        router.get("/dispatch") { request, _ in page.response(for: request) }
    }

    static func html(tileServer: RasterTileServer?, phoneExample: String? = nil) -> String {
        WebPage.render(
            "Dispatch/dispatch.html",
            [
                "tileAttribute": WebPage.tileAttribute(tileServer),
                "phoneExample": WebPage.escape(phoneExample ?? ""),
            ])
    }
}

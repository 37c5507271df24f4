import Foundation
import Hummingbird

/// `GET /vendor`: the store's page, where the staff an admin invited sign in by phone and see and ready the store's
/// open orders. Public and empty like the other pages: everything comes from the API with the staff's token.
struct VendorPage {
    func register(on router: Router<LogisticsRequestContext>) {
        let page = WebPage.fixed("vendor.html", html: WebPage.render("Vendor/vendor.html", [:]), tileServer: nil)
        router.get("/vendor") { request, _ in page.response(for: request) }
    }
}

import Foundation
import Hummingbird

/// `GET /vendor`: the store's page, where the staff an admin invited sign in by phone and see and ready the store's
/// open orders. Public and empty like the other pages: everything comes from the API with the staff's token.
struct VendorPage {
    /// The city's phone number to show as an example (`LOGISTICS_PHONE_EXAMPLE`), if the operator gave one.
    var phoneExample: String? = nil

    func register(on router: Router<LogisticsRequestContext>) {
        let html = WebPage.render("Vendor/vendor.html", ["phoneExample": WebPage.escape(phoneExample ?? "")])
        let page = WebPage.fixed("vendor.html", html: html, tileServer: nil)
        router.get("/vendor") { request, _ in page.response(for: request) }
    }
}

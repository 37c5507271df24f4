import Foundation
import LogisticsCore
import LogisticsStore

/// The body of `POST /api/v1/orders`.
struct CreateOrderRequest: Decodable {
    var externalRef: String?
    /// A registered store: its name, address and place are the order's pickup, and its staff see the order.
    var vendorId: UUID?
    /// A pickup place given in full; not needed when `vendorId` names a store, nor from a registered store's staff.
    var vendor: VendorStop?
    var customer: CustomerContact
    /// Kept as text: an unknown value is stored as PHOTO with a warning, not refused (requirement).
    var podType: String?
    var notes: String?
    /// Minutes the vendor expects to need; automatic dispatch sends a rider to arrive as the goods are ready.
    var preparationMinutes: Int?

    func validationErrors() -> [FieldError] {
        var errors: [FieldError] = []
        func text(_ value: String?, _ field: String, required: Bool, max: Int) {
            guard let value else {
                if required { errors.append(FieldError(field: field, message: "is required")) }
                return
            }
            if required && value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                errors.append(FieldError(field: field, message: "must not be empty"))
            }
            if value.count > max {
                errors.append(FieldError(field: field, message: "must be at most \(max) characters"))
            }
        }
        text(externalRef, "externalRef", required: false, max: 100)
        if let vendor {
            text(vendor.name, "vendor.name", required: true, max: 200)
            text(vendor.address, "vendor.address", required: true, max: 500)
            errors += vendor.location.validationErrors(field: "vendor.location")
        }
        text(customer.name, "customer.name", required: true, max: 200)
        text(customer.address, "customer.address", required: true, max: 500)
        errors += customer.location.validationErrors(field: "customer.location")
        // ASCII digits only, as the OpenAPI pattern says: other scripts' digits cannot be dialled as sent.
        let digits = customer.phone.filter { $0.isASCII && $0.isNumber }.count
        let allowed = customer.phone.allSatisfy { ($0.isASCII && $0.isNumber) || " +-().".contains($0) }
        if !allowed || digits < 6 || digits > 20 || customer.phone.count > 40 {
            errors.append(
                FieldError(field: "customer.phone", message: "must be a phone number of 6 to 20 digits (40 characters)")
            )
        }
        if let locale = customer.locale,
            locale.isEmpty || locale.count > 35
                || !locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        {
            errors.append(
                FieldError(field: "customer.locale", message: "must be a language tag such as en, hi or mr-IN"))
        }
        if let notify = customer.notify {
            if notify.isEmpty || Set(notify).count != notify.count {
                errors.append(
                    FieldError(field: "customer.notify", message: "must list push, sms or whatsapp, each at most once"))
            }
        }
        text(notes, "notes", required: false, max: 2000)
        if let preparationMinutes, !(1...240).contains(preparationMinutes) {
            errors.append(
                FieldError(field: "preparationMinutes", message: "must be a whole number of 1 to 240 minutes"))
        }
        return errors
    }
}

struct CancelOrderRequest: Decodable {
    var reason: String?
}

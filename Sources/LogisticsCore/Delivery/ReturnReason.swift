/// Why an order that was picked up goes back to the store, as the customer is told it: fixed, translated words
/// (the catalog's `reason.<KIND>`). The dispatcher's own `reason` stays in the order's log and is what the rider
/// reads; it never reaches the customer.
public enum ReturnReason: String, Codable, Sendable, CaseIterable {
    case customerUnavailable = "CUSTOMER_UNAVAILABLE"
    case addressNotFound = "ADDRESS_NOT_FOUND"
    case wrongAddress = "WRONG_ADDRESS"
    case orderDamaged = "ORDER_DAMAGED"
    /// The customer asked for the order to go back (refused it, cancelled at the door).
    case customerRequest = "CUSTOMER_REQUEST"
    case other = "OTHER"
}

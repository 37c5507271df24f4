import Foundation
import LogisticsCore
import Testing

@Suite("Who may see and change an order")
struct OrderAccessTests {
    static func order(vendor: UUID, customer: UUID, rider: UUID? = nil, status: OrderStatus = .preparing) -> Order {
        let stop = VendorStop(name: "Shop", address: "A", location: GeoPoint(lat: 0, lon: 0))
        let contact = CustomerContact(
            id: customer, name: "C", phone: "123456", address: "B", location: GeoPoint(lat: 0, lon: 0))
        return Order(
            id: UUID(), externalRef: nil, createdBy: vendor, vendor: stop, customer: contact, podType: .photo,
            notes: nil,
            status: status, assignedRiderId: rider, createdAt: Date(), updatedAt: Date())
    }

    @Test("each role sees only its own orders; staff see all")
    func view() {
        let vendor = UUID()
        let customer = UUID()
        let rider = UUID()
        let order = Self.order(vendor: vendor, customer: customer, rider: rider)
        #expect(OrderAccess.canView(order, Actor(id: UUID(), role: .dispatcher)))
        #expect(OrderAccess.canView(order, Actor(id: vendor, role: .vendor)))
        #expect(!OrderAccess.canView(order, Actor(id: UUID(), role: .vendor)))
        #expect(OrderAccess.canView(order, Actor(id: customer, role: .customer)))
        #expect(!OrderAccess.canView(order, Actor(id: UUID(), role: .customer)))
        #expect(OrderAccess.canView(order, Actor(id: rider, role: .rider)))
        #expect(!OrderAccess.canView(order, Actor(id: UUID(), role: .rider)))
    }

    @Test("customers may cancel until pickup")
    func customerCancel() {
        let customer = Actor(id: UUID(), role: .customer)
        #expect(
            OrderAccess.canCancel(Self.order(vendor: UUID(), customer: customer.id, status: .riderAssigned), customer))
        #expect(!OrderAccess.canCancel(Self.order(vendor: UUID(), customer: customer.id, status: .inTransit), customer))
    }

    @Test("a vendor may cancel its own order until pickup; after pickup only a dispatcher or an admin may")
    func vendorCancel() {
        let vendor = Actor(id: UUID(), role: .vendor)
        let assigned = Self.order(vendor: vendor.id, customer: UUID(), status: .riderAssigned)
        #expect(OrderAccess.canCancel(assigned, vendor))
        #expect(!OrderAccess.canCancel(assigned, Actor(id: UUID(), role: .vendor)), "another vendor")
        for status in [OrderStatus.inTransit, .arrivedAtDestination] {
            let pickedUp = Self.order(vendor: vendor.id, customer: UUID(), status: status)
            #expect(!OrderAccess.canCancel(pickedUp, vendor), "\(status)")
            #expect(OrderAccess.canCancel(pickedUp, Actor(id: UUID(), role: .dispatcher)), "\(status)")
            #expect(OrderAccess.canCancel(pickedUp, Actor(id: UUID(), role: .admin)), "\(status)")
        }
        #expect(!OrderAccess.canCancel(assigned, Actor(id: UUID(), role: .rider)))
    }

    @Test("a rider has the customer's contact while the task is under way, and not once it has ended")
    func riderSeesCustomer() {
        let order = Self.order(vendor: UUID(), customer: UUID(), status: .inTransit)
        func task(_ status: TaskStatus) -> DeliveryTask {
            DeliveryTask(
                id: UUID(), orderId: order.id, riderId: UUID(), offerId: nil, status: status, acceptedAt: Date(),
                updatedAt: Date())
        }
        for status in TaskStatus.allCases {
            #expect(OrderAccess.riderSeesCustomer(task(status), order) == !status.isFinal, "\(status)")
        }
        var cancelled = order
        cancelled.status = .cancelled
        #expect(!OrderAccess.riderSeesCustomer(task(.pickedUp), cancelled), "the order ended before the task heard")
    }

    @Test("a vendor's own order starts PREPARING; a dispatcher's waits for the vendor")
    func intake() {
        let intake = OrderIntake(otp: DeliveryOTP(serverSecret: [1, 2, 3]))
        let request = NewOrder(
            externalRef: nil, vendor: VendorStop(name: "S", address: "A", location: GeoPoint(lat: 0, lon: 0)),
            customer: CustomerContact(
                id: UUID(), name: "C", phone: "123456", address: "B", location: GeoPoint(lat: 0, lon: 0)),
            podType: .otp, notes: nil)
        var generator = SystemRandomNumberGenerator()
        let byVendor = intake.makeOrder(
            request, id: UUID(), by: Actor(id: UUID(), role: .vendor), now: Date(), generator: &generator)
        #expect(byVendor.status == .preparing)
        #expect(byVendor.otpSeed != nil && byVendor.otpHash != nil)
        let byDispatcher = intake.makeOrder(
            request, id: UUID(), by: Actor(id: UUID(), role: .dispatcher), now: Date(), generator: &generator)
        #expect(byDispatcher.status == .pendingVendorAcceptance)
    }
}

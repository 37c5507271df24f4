import Foundation
import LogisticsCore
import LogisticsServer
import NIOHTTP1
import RiderKit
import Synchronization

/// Simulated riders doing whole deliveries through RiderKit's typed clients, as the apps make them: online → offer
/// → accept → three status taps → the customer's code as proof → delivered, with a dispatcher placing, readying and
/// offering each order and the customer reading the code.
struct DeliveryLoad {
    let base: String
    let transport: any RiderTransport
    let tokens: AccessTokenIssuer
    let riders: Int
    let deliveries: Int
    /// The riders' ids, when the same riders come back run after run (the soak); new ones each run otherwise.
    var riderIds: [UUID]? = nil

    static let store = VendorStop(
        name: "Café de Paris", address: "Place du Casino", location: GeoPoint(lat: 43.7396, lon: 7.4276))
    static let door = GeoPoint(lat: 43.7347, lon: 7.4240, accuracyM: 5)

    struct Result {
        var completed: Int
        var elapsed: Duration
    }

    func run(progress: @escaping @Sendable (Int) -> Void) async throws -> Result {
        let dispatcher = try await tokens.token(subject: UUID(), role: .dispatcher, ttl: 86_400)
        let remaining = Countdown(deliveries)
        let start = ContinuousClock.now
        let completed = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<riders {
                group.addTask {
                    try await riderLoop(index: index, dispatcher: dispatcher, remaining: remaining, progress: progress)
                }
            }
            return try await group.reduce(0, +)
        }
        return Result(completed: completed, elapsed: ContinuousClock.now - start)
    }

    private func riderLoop(index: Int, dispatcher: String, remaining: Countdown, progress: @Sendable (Int) -> Void)
        async throws -> Int
    {
        let riderId = riderIds?[index] ?? UUID()
        let riderToken = try await tokens.token(
            subject: riderId, role: .rider, name: "Bench Rider \(index)", ttl: 86_400)
        let rider = RiderAPI(baseURL: base, token: { riderToken }, transport: transport, timeout: .seconds(30))
        let office = OfficeAPI(baseURL: base, token: { dispatcher }, transport: transport, timeout: .seconds(30))
        _ = try await rider.setAvailability(online: true)
        var done = 0
        while remaining.take() {
            let customerId = UUID()
            let customerToken = try await tokens.token(subject: customerId, role: .customer, ttl: 86_400)
            let customer = CustomerAPI(
                baseURL: base, token: { customerToken }, transport: transport, timeout: .seconds(30))
            let orderId = try await office.placeOrder(
                ref: "BENCH", from: Self.store,
                to: CustomerContact(
                    id: customerId, name: "Bench Customer", phone: "+377 93 15 00 01", address: "Quai Antoine 1er",
                    location: Self.door))
            try await office.markReady(orderId: orderId)
            let offerIds = try await office.offer(orderId: orderId, to: [riderId])
            _ = try await rider.offers()
            let taskId = try await rider.accept(offerId: offerIds[0]).taskId
            for status in [TaskStatus.arrivedAtStore, .pickedUp, .arrivedAtDestination, .delivered] {
                if status == .delivered {
                    let code = try await customer.deliveryCode(orderId: orderId) ?? ""
                    try await rider.submitDeliveryCode(
                        taskId: taskId, code: code, capturedAt: Date(), location: Self.door, actionId: UUID())
                }
                _ = try await rider.updateStatus(
                    taskId: taskId,
                    StatusUpdate(status: status, location: Self.door, occurredAt: Date(), eventId: UUID()))
            }
            done += 1
            progress(1)
        }
        return done
    }
}

/// Counts finished deliveries for the progress line.
final class DeliveryCounter: Sendable {
    private let count = Mutex(0)
    func add(_ delta: Int) { count.withLock { $0 += delta } }
    var value: Int { count.withLock { $0 } }
}

/// Hands out a fixed number of deliveries to the riders.
final class Countdown: Sendable {
    private let left: Mutex<Int>
    init(_ count: Int) { left = .init(count) }
    func take() -> Bool {
        left.withLock {
            guard $0 > 0 else { return false }
            $0 -= 1
            return true
        }
    }
}

import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import NIOCore
import RiderKit
import Synchronization

/// Orders whose customers are texted at each step: prepared up to the store (assigned, the assignment texted,
/// arrived at the store), then driven through the three steps that text the customer — PICKED_UP,
/// ARRIVED_AT_DESTINATION and DELIVERED (with the customer's code as proof) — one status change at a time at a
/// steady rate, round-robin over the orders so each customer's texts are seconds apart.
struct CustomerMessageLoad {
    let base: String
    let http: HTTPClient
    let tokens: AccessTokenIssuer
    let orders: Int
    /// Timed rows: the status changes, the proofs and the customer's code as the API answered them.
    let recorder: LatencyRecorder

    /// The steps driven, in each order's order; each texts the customer once.
    static let steps: [TaskStatus] = [.pickedUp, .arrivedAtDestination, .delivered]

    /// The customer's texts before the driven steps: the order received, then the rider assigned.
    static let textsBefore = 2

    struct Prepared: Sendable {
        var phone: String
        var orderId: String
        var taskId: String
        var riderToken: String
        var customerToken: String
    }

    /// One status change sent: whose, which of the customer's texts it makes (0 is the order's, 1 the assignment's), and when
    /// the PATCH left the client and when its answer came back.
    struct Change: Sendable {
        var phone: String
        var text: Int
        var sent: ContinuousClock.Instant
        var answered: ContinuousClock.Instant
    }

    /// Distinct E.164 numbers in Monaco's mobile range, one per order.
    static func phone(_ index: Int) -> String { "+3776\(String(format: "%07d", index))" }

    /// Places, readies, offers and accepts every order and walks its rider to the store, a few at a time.
    func prepare(progress: @escaping @Sendable (Int) -> Void) async throws -> [Prepared] {
        let dispatcher = try await tokens.token(subject: UUID(), role: .dispatcher, ttl: 86_400)
        let untimed = TimedTransport(http: http)
        let office = OfficeAPI(baseURL: base, token: { dispatcher }, transport: untimed, timeout: .seconds(30))
        return try await withThrowingTaskGroup(of: [Prepared].self) { group in
            let workers = 8
            for worker in 0..<workers {
                group.addTask {
                    var prepared: [Prepared] = []
                    for index in stride(from: worker, to: orders, by: workers) {
                        prepared.append(try await prepareOne(index, office: office, transport: untimed))
                        progress(1)
                    }
                    return prepared
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
    }

    private func prepareOne(_ index: Int, office: OfficeAPI, transport: TimedTransport) async throws -> Prepared {
        let riderId = UUID()
        let customerId = UUID()
        let riderToken = try await tokens.token(
            subject: riderId, role: .rider, name: "Bench Rider \(index)", ttl: 86_400)
        let customerToken = try await tokens.token(subject: customerId, role: .customer, ttl: 86_400)
        let rider = RiderAPI(baseURL: base, token: { riderToken }, transport: transport, timeout: .seconds(30))
        _ = try await rider.setAvailability(online: true)
        let phone = Self.phone(index)
        let orderId = try await office.placeOrder(
            ref: "TEXT-\(index)", from: DeliveryLoad.store,
            to: CustomerContact(
                id: customerId, name: "Bench Customer", phone: phone, address: "Quai Antoine 1er",
                location: DeliveryLoad.door, notify: [.sms]))
        try await office.markReady(orderId: orderId)
        let offerIds = try await office.offer(orderId: orderId, to: [riderId])
        let taskId = try await rider.accept(offerId: offerIds[0]).taskId
        _ = try await rider.updateStatus(
            taskId: taskId,
            StatusUpdate(
                status: .arrivedAtStore, location: DeliveryLoad.store.location, occurredAt: Date(), eventId: UUID()))
        return Prepared(
            phone: phone, orderId: orderId, taskId: taskId, riderToken: riderToken, customerToken: customerToken)
    }

    /// `changes` status changes started at `rate` per second (open loop: each on its own task, whether or not the
    /// ones before have been answered). Returns the changes the server accepted, and how many it did not.
    func drive(_ prepared: [Prepared], changes: Int, rate: Double, progress: @escaping @Sendable () -> Void)
        async -> (changes: [Change], failures: [String])
    {
        let pacer = Pacer(requestsPerSecond: rate)
        let timed = TimedTransport(http: http, recorder: recorder)
        let done = Collected<Change>()
        let failures = Collected<String>()
        await withTaskGroup(of: Void.self) { group in
            for slot in 0..<changes {
                await pacer.wait()
                let order = prepared[slot % prepared.count]
                let step = slot / prepared.count
                group.addTask {
                    do {
                        let change = try await statusChange(order, step: step, transport: timed)
                        done.append(change)
                    } catch {
                        failures.append("\(Self.steps[step]) for \(order.phone): \(error)")
                    }
                    progress()
                }
            }
        }
        return (done.all, failures.all)
    }

    private func statusChange(_ order: Prepared, step: Int, transport: TimedTransport) async throws -> Change {
        let status = Self.steps[step]
        let rider = RiderAPI(
            baseURL: base, token: { order.riderToken }, transport: transport, timeout: .seconds(30))
        if status == .delivered {
            let customer = CustomerAPI(
                baseURL: base, token: { order.customerToken }, transport: transport, timeout: .seconds(30))
            let code = try await customer.deliveryCode(orderId: order.orderId) ?? ""
            try await rider.submitDeliveryCode(
                taskId: order.taskId, code: code, capturedAt: Date(), location: DeliveryLoad.door, actionId: UUID())
        }
        let sent = ContinuousClock.now
        _ = try await rider.updateStatus(
            taskId: order.taskId,
            StatusUpdate(status: status, location: DeliveryLoad.door, occurredAt: Date(), eventId: UUID()))
        return Change(phone: order.phone, text: step + Self.textsBefore, sent: sent, answered: .now)
    }
}

/// Twilio-shaped requests sent straight to the sink from this process, beside the load: the floor, what a text
/// costs with no server, outbox or queue in between.
struct DirectSends {
    let url: String
    static let phone = "+37799000000"

    /// Sends one request every `interval` until cancelled; returns when each left.
    func run(http: HTTPClient, interval: Duration) async -> [String: ContinuousClock.Instant] {
        var started: [String: ContinuousClock.Instant] = [:]
        var index = 0
        let credentials = Data("\(TwilioSink.accountSid):\(TwilioSink.authToken)".utf8).base64EncodedString()
        while !Task.isCancelled {
            let body = "direct \(index)"
            var request = HTTPClientRequest(url: url)
            request.method = .POST
            request.headers.add(name: "authorization", value: "Basic \(credentials)")
            request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
            let form = [("To", Self.phone), ("From", TwilioSink.from), ("Body", body)]
                .map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
                .joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: form))
            started[body] = .now
            _ = try? await http.execute(request, timeout: .seconds(15))
            index += 1
            try? await Task.sleep(for: interval)
        }
        return started
    }
}

/// What the load's tasks hand back, gathered as they finish.
final class Collected<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])
    func append(_ element: Element) { elements.withLock { $0.append(element) } }
    var all: [Element] { elements.withLock { $0 } }
}

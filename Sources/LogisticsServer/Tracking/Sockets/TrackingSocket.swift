import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import NIOCore

/// `WS /api/v1/customer/orders/{orderId}/tracking`: the snapshot, then live `location`, `status`, `stale` and
/// `ended` messages, and a close with 1000 when the delivery ends (**R** AC-005). The order's customer opens it
/// with a JWT, anyone else only with a tracking link of that order. Refusals: 4401, 4403 (not a customer),
/// 4404 (not this customer's order), 4409 before pickup, 4410 after the end.
///
/// Customers' sockets come by the ten thousand and mostly wait, so this stream is served on its connection's event
/// loop (`LoopSocket`) with no task of its own: the sign-in and the database reads run in a task that ends with
/// them, and the hub's messages are written as they come.
final class TrackingSocket: LoopSocketStream {
    static let path = "/api/v1/customer/orders/{orderId}/tracking"
    static let name = "customer"

    private enum Phase {
        case awaitingToken
        /// Signing in and reading the order; the hub's messages and the client's wait.
        case opening
        case following
        /// A new snapshot is being read after a resume that came too late; the hub's messages wait.
        case resyncing
        case done
    }

    private let opener: TrackingOpener
    private let token: String?
    private let requestedOrder: String?
    private var socket: LoopSocket?
    private var phase = Phase.awaitingToken
    private var orderId: UUID?
    private var lastSent = 0
    private var heldMessages: [TrackingHub.Delivery] = []
    private var heldTexts: [String] = []
    /// When the last resync's snapshot was read: each costs a database read and a route, so one per
    /// `SocketPolicy.resyncInterval`.
    private var lastResync: ContinuousClock.Instant?

    private init(opener: TrackingOpener, token: String?, requestedOrder: String?) {
        self.opener = opener
        self.token = token
        self.requestedOrder = requestedOrder
    }

    static func register(in router: Router<LogisticsRequestContext>, opener: TrackingOpener) {
        router.registerSocket(path) { request, context in
            let token = SocketPolicy.bearerToken(request.headers)
            let order = context.parameters.get("orderId")
            return LoopSocketOpening(
                name: name, path: path, metrics: opener.access.metrics, pingInterval: opener.access.pingInterval
            ) { TrackingSocket(opener: opener, token: token, requestedOrder: order) }
        }
    }

    func opened(_ socket: LoopSocket) {
        self.socket = socket
        LoopSocketToken.await(token, on: socket, isWaiting: { self.phase == .awaitingToken }, start: start)
    }

    func received(text: String) {
        switch phase {
        case .awaitingToken:
            if let token = LoopSocketToken.from(firstMessage: text, socket) { start(token) }
        case .opening, .resyncing:
            heldTexts.append(text)
        case .following:
            resume(text)
        case .done:
            break
        }
    }

    func ended() {
        phase = .done
        socket = nil
        heldMessages = []
    }

    // MARK: Opening

    private func start(_ token: String) {
        guard let socket else { return }
        phase = .opening
        let handle = socket.handle(self)
        // The socket bounds what it holds for a slow client itself, so it never refuses a message and the hub never
        // drops it; the feed's end is the `ended` message, which closes the socket in its turn.
        let follower = TrackingHub.Follower(
            take: { delivery in
                handle.execute { $0.take(delivery) }
                return true
            },
            end: {})
        let (opener, requested) = (self.opener, self.requestedOrder)
        Task {
            do {
                let opened = try await opener.open(token: token, orderId: requested, follower)
                handle.execute { $0.didOpen(opened) }
            } catch {
                handle.execute { $0.socket?.refuse(error) }
            }
        }
    }

    private func didOpen(_ opened: TrackingOpener.Opened) {
        let hub = opener.access.hub
        guard phase == .opening, let socket, socket.admit(opened.caller, limits: opener.access.callers) else {
            hub.unfollow(orderId: opened.orderId, subscriber: opened.subscriber)
            return
        }
        orderId = opened.orderId
        socket.onEnd { hub.unfollow(orderId: opened.orderId, subscriber: opened.subscriber) }
        if let validUntil = opened.validUntil {
            socket.closeWhenTokenExpires(validUntil, now: opener.access.clock.now())
        }
        if let linkId = opened.linkId {
            socket.closeWhenAccessLost(.trackingLink(linkId), watch: opener.access.revocationWatch)
        }
        sendSnapshot(opened.snapshot)
    }

    /// The snapshot, then what arrived while it was read and is newer, then what the client asked meanwhile.
    private func sendSnapshot(_ snapshot: TrackingOpener.Snapshot) {
        socket?.send(text: snapshot.text)
        lastSent = snapshot.seq
        follow()
    }

    /// Back to following: what was held while a snapshot was read goes out first.
    private func follow() {
        phase = .following
        let (messages, texts) = (heldMessages, heldTexts)
        heldMessages = []
        heldTexts = []
        for delivery in messages where phase == .following { deliver(delivery) }
        for text in texts where phase == .following { resume(text) }
    }

    // MARK: Following

    private func take(_ delivery: TrackingHub.Delivery) {
        switch phase {
        case .following:
            deliver(delivery)
        case .opening, .resyncing:
            heldMessages.append(delivery)
            if heldMessages.count > SocketPolicy.backlogMessages {
                socket?.overloaded("the client fell behind", cutOff: "behind")
            }
        case .awaitingToken, .done:
            break
        }
    }

    private func deliver(_ delivery: TrackingHub.Delivery) {
        guard delivery.message.seq > lastSent, let socket else { return }
        socket.send(text: delivery.frame)
        lastSent = delivery.message.seq
        if case .ended = delivery.message {
            socket.close(code: .normalClosure, reason: "delivery ended")
            phase = .done
        }
    }

    /// `{"resumeFrom": seq}`: what the client missed, or a `resync` and a new snapshot when that is gone.
    private func resume(_ text: String) {
        guard let request = try? JSONDecoder().decode(ResumeRequest.self, from: Data(text.utf8)),
            let orderId, let socket
        else { return }
        switch opener.access.hub.replay(orderId: orderId, after: request.resumeFrom, stream: request.stream) {
        case .messages(let missed):
            for message in missed {
                socket.send(text: message.jsonText)
                lastSent = max(lastSent, message.seq)
            }
        case .resync, nil:
            if let last = lastResync, ContinuousClock.now - last < SocketPolicy.resyncInterval {
                let seconds = Int((SocketPolicy.resyncInterval - (ContinuousClock.now - last)).components.seconds) + 1
                socket.sendProblem(
                    LogisticsError(
                        .rateLimited, "At most one resync every \(SocketPolicy.resyncInterval.components.seconds) s",
                        retryAfterSeconds: seconds))
                return
            }
            lastResync = .now
            socket.send(text: #"{"type":"resync"}"#)
            phase = .resyncing
            let (opener, handle) = (self.opener, socket.handle(self))
            Task {
                let snapshot = try? await opener.snapshot(orderId: orderId)
                handle.execute { stream in
                    guard stream.phase == .resyncing else { return }
                    if let snapshot { stream.sendSnapshot(snapshot) } else { stream.follow() }
                }
            }
        }
    }

    private struct ResumeRequest: Decodable {
        var resumeFrom: Int
        /// The snapshot's `stream`; without it the seq is taken to belong to this channel.
        var stream: String?
    }
}

/// The customer stream's work off the event loop: who may follow the order, its channel, and snapshots.
struct TrackingOpener: Sendable {
    let access: StreamAccess
    let snapshots: TrackingSnapshots
    let linkAccess: TrackingLinkAccess
    let lookup: OrderLookup

    struct Snapshot: Sendable {
        var seq: Int
        var text: String
    }

    struct Opened: Sendable {
        var orderId: UUID
        /// Who follows: the customer signed in, or the holder of a tracking link.
        var caller: CallerLimits.Caller
        var validUntil: Date?
        var linkId: UUID?
        var subscriber: UUID
        var snapshot: Snapshot
    }

    /// The order, a subscription, then the snapshot (subscribed first, so nothing falls between the two; the stream
    /// drops what the snapshot already covers).
    func open(token: String, orderId: String?, _ follower: TrackingHub.Follower) async throws -> Opened {
        let (order, validUntil, caller, linkId) = try await authorize(token: token, orderId: orderId)
        // 409 before pickup and 410 after the end; this also opens the order's channel.
        try await snapshots.openChannel(of: order)
        guard let (_, subscriber) = access.hub.follow(orderId: order.id, follower) else {
            throw LogisticsError(.trackingEnded, "The order's tracking has ended")
        }
        do {
            return Opened(
                orderId: order.id, caller: caller, validUntil: validUntil, linkId: linkId, subscriber: subscriber,
                snapshot: try await snapshot(of: order))
        } catch {
            access.hub.unfollow(orderId: order.id, subscriber: subscriber)
            throw error
        }
    }

    func snapshot(orderId: UUID) async throws -> Snapshot? {
        guard let order = try await lookup.orders.order(id: orderId) else { return nil }
        return try await snapshot(of: order)
    }

    private func snapshot(of order: Order) async throws -> Snapshot {
        let snapshot = try await snapshots.snapshot(of: order)
        return Snapshot(seq: snapshot.seq, text: String(decoding: try APIJSON.encoder.encode(snapshot), as: UTF8.self))
    }

    /// The order, if the token may follow it now, and until when the token is accepted (nil: a tracking link, good
    /// until the order ends); otherwise the error to refuse with.
    private func authorize(token: String, orderId text: String?) async throws -> (
        Order, validUntil: Date?, caller: CallerLimits.Caller, linkId: UUID?
    ) {
        guard let text, let id = UUID(uuidString: text) else {
            throw LogisticsError.validation(field: "orderId", "must be a UUID")
        }
        if linkAccess.links.reference(fromToken: token) != nil {
            let (order, linkId) = try await linkAccess.order(token)
            guard order.id == id else { throw LogisticsError.notFound("order") }
            // A link of an earlier version has no id of its own: its order stands for it.
            return (order, nil, .trackingLink(linkId ?? order.id), linkId)
        }
        let (actor, validUntil) = try await access.admission.admission(bearer: token)
        guard actor.role == .customer else {
            throw LogisticsError(.forbidden, "Live tracking is for the order's customer")
        }
        return (
            try await lookup.customersOwnOrder(id: id, customer: actor), validUntil, .signedIn(actor.id),
            nil
        )
    }
}

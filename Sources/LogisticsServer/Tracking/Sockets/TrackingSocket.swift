import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LogisticsCore

/// `WS /api/v1/customer/orders/{orderId}/tracking`: the snapshot, then live `location`, `status`, `stale` and
/// `ended` messages, and a close with 1000 when the delivery ends (**R** AC-005). The order's customer opens it
/// with a JWT, anyone else only with a tracking link of that order. Refusals: 4401, 4403 (not a customer),
/// 4404 (not this customer's order), 4409 before pickup, 4410 after the end.
struct TrackingSocket: SocketStream {
    let services: LogisticsServices

    static let path = "/api/v1/customer/orders/{orderId}/tracking"

    static let name = "customer"

    func serve(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>,
        _ context: WebSocketRouterContext<LogisticsRequestContext>
    ) async throws {
        try await follow(&session, &group, context)
    }

    /// The order, if the token may follow it now, and until when the token is accepted (nil: a tracking link, good
    /// until the order ends); otherwise the error to refuse with.
    private func authorize(token: String, orderId text: String?) async throws -> (
        Order, validUntil: Date?, linkId: UUID?
    ) {
        guard let text, let id = UUID(uuidString: text) else {
            throw LogisticsError.validation(field: "orderId", "must be a UUID")
        }
        if services.trackingLinks.reference(fromToken: token) != nil {
            let (order, linkId) = try await TrackingLinkAccess(services: services).order(token)
            guard order.id == id else { throw LogisticsError.notFound("order") }
            return (order, nil, linkId)
        }
        let (actor, validUntil) = try await services.admission(bearer: token)
        guard actor.role == .customer else {
            throw LogisticsError(.forbidden, "Live tracking is for the order's customer")
        }
        return (try await services.orderLookup.customersOwnOrder(id: id, customer: actor), validUntil, nil)
    }

    /// What the loop keeps of the opening: little, because whatever a long-lived async function holds stays
    /// allocated as long as the socket is open (the order and the snapshot made its frame 5 KiB).
    private struct Opened: Sendable {
        var orderId: UUID
        var validUntil: Date?
        var linkId: UUID?
        var subscriber: UUID
        var lastSent: Int
    }

    /// Everything a new follower needs before its loop: the order, the channel, a subscription, then the snapshot
    /// (subscribed first, so nothing falls between the two; the loop drops what the snapshot already covers).
    private func open(
        token: String, orderId: String?, _ outbound: WebSocketOutboundWriter, _ follower: TrackingHub.Follower
    ) async throws -> Opened {
        let (order, validUntil, linkId) = try await authorize(token: token, orderId: orderId)
        // 409 before pickup and 410 after the end; this also opens the order's channel.
        try await TrackingRoutes.openChannel(of: order, services: services)
        guard let (_, subscriber) = services.tracking.follow(orderId: order.id, follower) else {
            throw LogisticsError(.trackingEnded, "The order's tracking has ended")
        }
        do {
            let lastSent = try await sendSnapshot(of: order, outbound)
            return Opened(
                orderId: order.id, validUntil: validUntil, linkId: linkId, subscriber: subscriber, lastSent: lastSent)
        } catch {
            services.tracking.unfollow(orderId: order.id, subscriber: subscriber)
            throw error
        }
    }

    private struct ResumeRequest: Decodable {
        var resumeFrom: Int
        /// The snapshot's `stream`; without it the seq is taken to belong to this channel.
        var stream: String?
    }

    private func follow(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>,
        _ context: WebSocketRouterContext<LogisticsRequestContext>
    ) async throws {
        let orderId: UUID
        var lastSent: Int
        do {
            let token = try await session.token(headers: context.request.headers)
            let requested = context.requestContext.parameters.get("orderId")
            let sender = session.outbound
            let follower = session.follower()
            let opened = try await SocketSession.inPassingTask {
                try await self.open(token: token, orderId: requested, sender, follower)
            }
            orderId = opened.orderId
            lastSent = opened.lastSent
            let hub = services.tracking
            session.onEnd { hub.unfollow(orderId: opened.orderId, subscriber: opened.subscriber) }
            if let validUntil = opened.validUntil {
                session.closeWhenTokenExpires(validUntil, now: services.clock.now(), into: &group)
            }
            if let linkId = opened.linkId {
                session.closeWhenAccessLost(.trackingLink(linkId), watch: services.accessWatch)
            }
        } catch {
            try await session.refuse(error)
            return
        }
        loop: while let event = await session.next() {
            switch event {
            case .tracking(let message):
                guard message.seq > lastSent else { continue }
                try await session.send(text: message.jsonText)
                lastSent = message.seq
                if case .ended = message {
                    try await session.outbound.close(.normalClosure, reason: "delivery ended")
                    break loop
                }
            case .clientText(let text):
                lastSent = try await resume(text, orderId: orderId, lastSent: lastSent, session)
            case .feedClosed:
                // The hub cut this follower off for falling behind; it may reconnect and resume.
                try? await session.outbound.close(.goingAway, reason: "too slow; reconnect with resumeFrom")
                break loop
            case .clientClosed:
                break loop
            case .serverStopping:
                await session.closeForShutdown()
                break loop
            case .authenticationTimedOut, .push, .overloaded, .tokenExpired, .accessRevoked:
                continue
            }
        }
    }

    /// `{"resumeFrom": seq}`: what the client missed, or a `resync` and a new snapshot when that is gone. Apart
    /// from the loop, so its locals are not part of every socket's frame.
    @inline(never)
    private func resume(_ text: String, orderId: UUID, lastSent: Int, _ session: SocketSession) async throws -> Int {
        guard let request = try? JSONDecoder().decode(ResumeRequest.self, from: Data(text.utf8)) else {
            return lastSent
        }
        var lastSent = lastSent
        switch services.tracking.replay(orderId: orderId, after: request.resumeFrom, stream: request.stream) {
        case .messages(let missed):
            for message in missed {
                try await session.send(text: message.jsonText)
                lastSent = max(lastSent, message.seq)
            }
        case .resync, nil:
            try await session.send(text: #"{"type":"resync"}"#)
            if let fresh = try await services.repository.order(id: orderId) {
                lastSent = try await sendSnapshot(of: fresh, session.outbound)
            }
        }
        return lastSent
    }

    private func sendSnapshot(of order: Order, _ outbound: WebSocketOutboundWriter) async throws -> Int {
        let snapshot = try await TrackingRoutes.snapshot(of: order, services: services)
        try await outbound.write(.text(String(decoding: try APIJSON.encoder.encode(snapshot), as: UTF8.self)))
        return snapshot.seq
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import LogisticsCore

/// `WS /api/v1/customer/orders/{orderId}/tracking`: the snapshot, then live `location`, `status`, `stale` and
/// `ended` messages, and a close with 1000 when the delivery ends (**R** AC-005).
///
/// Refusals come right after the upgrade, as an `error` message carrying the problem document and a close code of
/// 4000 + the HTTP status (4401, 4403, 4404, 4409 before pickup, 4410 after the end): Hummingbird 2 answers every
/// refused upgrade with a 307 redirect, so a status sent before the upgrade would never reach a WebSocket client.
/// `GET` on the same path answers the same cases with the plain HTTP statuses.
struct TrackingSocket {
    let services: LogisticsServices

    static let path = "/api/v1/customer/orders/{orderId}/tracking"

    func register(on router: Router<LogisticsRequestContext>) {
        router.ws(
            RouterPath(Self.path),
            shouldUpgrade: { request, context in try await shouldUpgrade(request, context) },
            onUpgrade: { inbound, outbound, context in try await follow(inbound, outbound, context) })
    }

    /// A browser cannot set `Authorization` on a socket, so the token travels as the subprotocol pair
    /// `bearer, <jwt>` — never in the URL, where logs and proxies would keep it.
    static func bearerToken(_ headers: HTTPFields) -> String? {
        guard let value = headers[.secWebSocketProtocol] else { return nil }
        let parts = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else { return nil }
        return parts[1]
    }

    /// Browsers refuse a socket whose server does not echo one of the offered subprotocols.
    private func shouldUpgrade(_ request: Request, _ context: LogisticsRequestContext) async throws
        -> RouterShouldUpgrade
    {
        .upgrade(Self.bearerToken(request.headers) == nil ? [:] : [.secWebSocketProtocol: "bearer"])
    }

    /// The order, if the token's customer may follow it now; otherwise the error to refuse with.
    private func authorize(_ headers: HTTPFields, orderId text: String?) async throws -> Order {
        guard let token = Self.bearerToken(headers) else {
            throw LogisticsError(.unauthenticated, "Send the token as Sec-WebSocket-Protocol: bearer, <token>")
        }
        let actor = try await services.verifier.actor(fromBearer: token)
        guard actor.role == .customer else {
            throw LogisticsError(.forbidden, "Live tracking is for the order's customer")
        }
        guard let text, let id = UUID(uuidString: text) else {
            throw LogisticsError.validation(field: "orderId", "must be a UUID")
        }
        guard let order = try await services.repository.order(id: id), order.customer.id == actor.id else {
            throw LogisticsError.notFound("order")
        }
        // 409 before pickup and 410 after the end; this also opens the order's channel.
        _ = try await TrackingRoutes.snapshot(of: order, services: services)
        return order
    }

    private func refuse(_ error: any Error, _ outbound: WebSocketOutboundWriter) async throws {
        let problem = ProblemDocument.problem(for: error)
        let document = ProblemDocument.render(problem, instance: Self.path, requestId: "")
        try await outbound.write(
            .text(#"{"type":"error","problem":"# + String(decoding: document, as: UTF8.self) + "}"))
        try await outbound.close(.unknown(UInt16(4000 + problem.code.httpStatus)), reason: problem.code.rawValue)
    }

    private enum Event {
        case hub(TrackingMessage)
        case hubClosed
        case resume(Int)
        case clientClosed
    }

    private struct ResumeRequest: Decodable {
        var resumeFrom: Int
    }

    private func follow(
        _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter,
        _ context: WebSocketRouterContext<LogisticsRequestContext>
    ) async throws {
        let order: Order
        do {
            order = try await authorize(
                context.request.headers, orderId: context.requestContext.parameters.get("orderId"))
        } catch {
            try await refuse(error, outbound)
            return
        }
        let orderId = order.id
        // Subscribe first, then send the snapshot, then drop what the snapshot already covers (by seq).
        guard let (_, messages) = services.tracking.subscribe(orderId: orderId) else { return }
        var lastSent: Int
        do {
            lastSent = try await sendSnapshot(of: order, to: outbound)
        } catch {
            try await refuse(error, outbound)
            return
        }
        let (events, sink) = AsyncStream.makeStream(of: Event.self)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await message in messages { sink.yield(.hub(message)) }
                sink.yield(.hubClosed)
            }
            group.addTask {
                for try await frame in inbound.messages(maxSize: 4096) {
                    guard case .text(let text) = frame,
                        let request = try? JSONDecoder().decode(ResumeRequest.self, from: Data(text.utf8))
                    else { continue }
                    sink.yield(.resume(request.resumeFrom))
                }
                sink.yield(.clientClosed)
            }
            loop: for await event in events {
                switch event {
                case .hub(let message):
                    guard message.seq > lastSent else { continue }
                    try await send(message, to: outbound)
                    lastSent = message.seq
                    if case .ended = message {
                        try await outbound.close(.normalClosure, reason: "delivery ended")
                        break loop
                    }
                case .resume(let from):
                    switch services.tracking.replay(orderId: orderId, after: from) {
                    case .messages(let missed):
                        for message in missed {
                            try await send(message, to: outbound)
                            lastSent = max(lastSent, message.seq)
                        }
                    case .resync, nil:
                        try await outbound.write(.text(#"{"type":"resync"}"#))
                        if let fresh = try await services.repository.order(id: orderId) {
                            lastSent = try await sendSnapshot(of: fresh, to: outbound)
                        }
                    }
                case .hubClosed:
                    // The hub cut this follower off for falling behind; it may reconnect and resume.
                    try? await outbound.close(.goingAway, reason: "too slow; reconnect with resumeFrom")
                    break loop
                case .clientClosed:
                    break loop
                }
            }
            group.cancelAll()
        }
    }

    private func sendSnapshot(of order: Order, to outbound: WebSocketOutboundWriter) async throws -> Int {
        let snapshot = try await TrackingRoutes.snapshot(of: order, services: services)
        try await outbound.write(.text(String(decoding: try APIJSON.encoder.encode(snapshot), as: UTF8.self)))
        return snapshot.seq
    }

    private func send(_ message: TrackingMessage, to outbound: WebSocketOutboundWriter) async throws {
        try await outbound.write(.text(String(decoding: try APIJSON.encoder.encode(message), as: UTF8.self)))
    }
}

import Foundation
import Hummingbird
import HummingbirdWebSocket
import LogisticsCore

/// `WS /api/v1/dispatch/stream` (dispatchers and admins): every rider's fixes as `riderLocation` messages and
/// every order event as `event` messages carrying the outbox's event document. A dispatcher that falls more than
/// a few seconds behind is disconnected (close 1001) and reconnects; the order event log has everything missed.
struct DispatchStreamSocket: SocketStream {
    let services: LogisticsServices

    static let path = "/api/v1/dispatch/stream"

    static let name = "dispatch"

    func serve(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>,
        _ context: SocketContext
    ) async throws {
        try await watch(&session, &group, context.request)
    }

    private func watch(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>, _ request: Request
    ) async throws {
        do {
            let (actor, validUntil) = try await services.admission(
                bearer: try await session.token(headers: request.headers))
            guard actor.role == .dispatcher || actor.role == .admin else {
                throw LogisticsError(.forbidden, "The dispatch stream is for dispatchers and admins")
            }
            session.closeWhenTokenExpires(validUntil, now: services.clock.now(), into: &group)
        } catch {
            try await session.refuse(error)
            return
        }
        session.relay(services.tracking.watchEverything(), into: &group) { .push($0) }
        try await session.send(text: #"{"type":"ready"}"#)
        loop: while let event = await session.next() {
            switch event {
            case .push(let message):
                try await session.send(text: message)
            case .feedClosed:
                try? await session.outbound.close(.goingAway, reason: "too slow; reconnect")
                break loop
            case .clientClosed:
                break loop
            case .serverStopping:
                await session.closeForShutdown()
                break loop
            case .clientText, .authenticationTimedOut, .overloaded, .tokenExpired:
                continue
            }
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdWebSocket
import LogisticsCore

/// `WS /api/v1/rider/stream`: the rider's phone sends `{"type":"locations","ref":"…","fixes":[…]}` and gets an
/// `ack` (the same receipt as `POST /rider/locations`, sent once the fixes are stored) or an `error` with the
/// problem document, both carrying the `ref`; the server pushes `notification` messages (offers, cancellations,
/// dispatcher decisions) addressed to the rider. A bad message is answered, not fatal.
struct RiderStreamSocket: SocketStream {
    let services: LogisticsServices

    static let path = "/api/v1/rider/stream"

    static let name = "rider"

    func serve(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>,
        _ context: SocketContext
    ) async throws {
        try await exchange(&session, &group, context.request)
    }

    private struct Incoming: Decodable {
        var type: String
        var ref: String?
        var fixes: [LocationFix]?
    }

    private struct Ack: Encodable {
        var type = "ack"
        var ref: String?
        var receipt: LocationIngest.Receipt

        private enum Keys: String, CodingKey { case type, ref }

        func encode(to encoder: any Encoder) throws {
            try receipt.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(type, forKey: .type)
            try container.encodeIfPresent(ref, forKey: .ref)
        }
    }

    private func exchange(
        _ session: inout SocketSession, _ group: inout ThrowingTaskGroup<Void, any Error>, _ request: Request
    ) async throws {
        let rider: Actor
        do {
            let validUntil: Date
            (rider, validUntil) = try await services.admission(
                bearer: try await session.token(headers: request.headers))
            guard rider.role == .rider else { throw LogisticsError(.forbidden, "This stream is for riders") }
            session.closeWhenTokenExpires(validUntil, now: services.clock.now(), into: &group)
            session.closeWhenAccessLost(.rider(rider.id), watch: services.accessWatch)
        } catch {
            try await session.refuse(error)
            return
        }
        session.relay(services.tracking.inbox(of: rider.id), into: &group) { .push($0) }
        try await session.send(text: #"{"type":"ready"}"#)
        loop: while let event = await session.next() {
            switch event {
            case .clientText(let text):
                try await handle(text, from: rider, session)
            case .push(let message):
                try await session.send(text: message)
            case .clientClosed, .feedClosed:
                break loop
            case .serverStopping:
                await session.closeForShutdown()
                break loop
            case .authenticationTimedOut, .tracking, .overloaded, .tokenExpired, .accessRevoked:
                continue
            }
        }
    }

    private func handle(_ text: String, from rider: Actor, _ session: SocketSession) async throws {
        let incoming: Incoming
        do {
            incoming = try RequestBody.decodeJSON(Incoming.self, from: Data(text.utf8))
        } catch {
            try await session.sendProblem(error)
            return
        }
        guard incoming.type == "locations", let fixes = incoming.fixes else {
            try await session.sendProblem(
                LogisticsError.validation(field: "type", #"must be "locations" with a "fixes" array"#),
                reference: incoming.ref)
            return
        }
        do {
            let receipt = try await services.ingest.ingest(fixes, riderId: rider.id, now: services.clock.now())
            try await session.send(Ack(ref: incoming.ref, receipt: receipt))
        } catch {
            try await session.sendProblem(error, reference: incoming.ref)
        }
    }
}

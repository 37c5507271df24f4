import Foundation
import Hummingbird
import LogisticsCore
import NIOCore

/// `WS /api/v1/rider/stream`: the rider's phone sends `{"type":"locations","ref":"…","fixes":[…]}` and gets an
/// `ack` (the same receipt as `POST /rider/locations`, sent once the fixes are stored) or an `error` with the
/// problem document, both carrying the `ref`; the server pushes `notification` messages (offers, cancellations,
/// dispatcher decisions) addressed to the rider. A bad message is answered, not fatal.
///
/// A city's riders keep this socket open all shift, so it is served on its connection's event loop (`LoopSocket`):
/// each batch is stored by a task that ends with it, one batch at a time per rider, so acks come in the order the
/// batches were sent.
final class RiderStreamSocket: TokenSocketStream {
    static let path = "/api/v1/rider/stream"
    static let name = "rider"

    private enum Phase { case awaitingToken, signingIn, ready, done }

    private let services: LogisticsServices
    /// Made once: copying the services into every message's task retained and released each of them.
    private let answers: RiderStreamAnswers
    private let token: String?
    private var socket: LoopSocket?
    private var phase = Phase.awaitingToken
    private var rider: Actor?
    /// Messages not yet answered, oldest first; the flood limit bounds them.
    private var waiting = CircularBuffer<String>(initialCapacity: 0)
    private var isStoring = false

    init(services: LogisticsServices, token: String?) {
        self.services = services
        answers = RiderStreamAnswers(ingest: services.ingest, clock: services.clock, path: Self.path)
        self.token = token
    }

    func opened(_ socket: LoopSocket) {
        self.socket = socket
        LoopSocketToken.await(token, on: socket, isWaiting: { self.phase == .awaitingToken }, start: signIn)
    }

    func received(text: String) {
        switch phase {
        case .awaitingToken:
            if let token = LoopSocketToken.from(firstMessage: text, socket) { signIn(token) }
        case .signingIn, .ready:
            waiting.append(text)
            answerNext()
        case .done:
            break
        }
    }

    func ended() {
        phase = .done
        socket = nil
        waiting.removeAll()
    }

    private func signIn(_ token: String) {
        guard let socket else { return }
        phase = .signingIn
        LoopSocketToken.signIn(
            token, services: services, on: socket, for: self,
            admit: { guard $0.role == .rider else { throw LogisticsError(.forbidden, "This stream is for riders") } }
        ) { $0.signedIn($1, validUntil: $2) }
    }

    private func signedIn(_ rider: Actor, validUntil: Date) {
        guard phase == .signingIn, let socket else { return }
        self.rider = rider
        socket.closeWhenTokenExpires(validUntil, now: services.clock.now())
        socket.closeWhenAccessLost(.rider(rider.id), watch: services.accessWatch)
        let (hub, handle) = (services.tracking, socket.handle(self))
        let reader = hub.receive(for: rider.id) { message in handle.execute { $0.socket?.send(text: message) } }
        socket.onEnd { hub.stopReceiving(for: rider.id, reader: reader) }
        socket.send(text: #"{"type":"ready"}"#)
        phase = .ready
        answerNext()
    }

    /// Stores the oldest waiting batch and answers it, then the next; one at a time.
    private func answerNext() {
        guard phase == .ready, !isStoring, let rider, let socket, let text = waiting.popFirst() else { return }
        isStoring = true
        let (answers, handle) = (answers, socket.handle(self))
        Task {
            let answer = await answers.answer(text, from: rider)
            handle.execute { stream in
                stream.isStoring = false
                stream.socket?.send(text: answer)
                stream.answerNext()
            }
        }
    }
}

/// What the rider's socket answers to one message, worked out off the event loop.
struct RiderStreamAnswers: Sendable {
    let ingest: LocationIngest
    let clock: any WallClock
    let path: String

    private struct Incoming: Decodable {
        var type: String
        var ref: String?
        var fixes: [LocationFix]?
    }

    /// An `ack` once the fixes are stored, or an `error` with the problem and the message's `ref`.
    func answer(_ text: String, from rider: Actor) async -> String {
        let incoming: Incoming
        if let batch = FixBatchReader.read(text), let type = batch.type {
            incoming = Incoming(type: type, ref: batch.ref, fixes: batch.fixes)
        } else {
            do {
                incoming = try RequestBody.decodeJSON(Incoming.self, from: Data(text.utf8))
            } catch {
                return SocketPolicy.problemMessage(for: error, path: path)
            }
        }
        guard incoming.type == "locations", let fixes = incoming.fixes else {
            return SocketPolicy.problemMessage(
                for: LogisticsError.validation(field: "type", #"must be "locations" with a "fixes" array"#),
                path: path, reference: incoming.ref)
        }
        do {
            let receipt = try await ingest.ingest(fixes, riderId: rider.id, now: clock.now())
            return Self.ack(receipt, ref: incoming.ref)
        } catch {
            return SocketPolicy.problemMessage(for: error, path: path, reference: incoming.ref)
        }
    }

    /// `{"accepted":…,"ref":…,"type":"ack",…}`: the receipt with the message's `ref`, keys sorted as
    /// `APIJSON.encoder` writes them.
    static func ack(_ receipt: LocationIngest.Receipt, ref: String?) -> String {
        var json = JSONOutput(capacity: 96)
        json.object { json in
            json.field("accepted", receipt.accepted)
            json.field("duplicates", receipt.duplicates)
            json.field("ref", ref)
            json.field("rejected", receipt.rejected)
            json.array("rejections", receipt.rejections) { json, rejection in
                json.object { json in
                    json.field("index", rejection.index)
                    json.field("reason", rejection.reason)
                }
            }
            json.field("type", "ack")
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }
}

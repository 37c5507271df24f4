import Foundation
import Logging
import LogisticsCore
import LogisticsStore
import ServiceLifecycle
import Synchronization

/// Live tracking across instances on one PostgreSQL: every update goes to the local hub at once and, coalesced
/// into few small `NOTIFY` payloads, to the other instances, which each hold one `LISTEN` connection.
///
/// Limits, documented in the README: a payload must stay under 8,000 bytes (we pack up to ~7 KB, about 45 fixes);
/// every `NOTIFY` takes a cluster-wide lock at commit, so notifications serialise — fine for thousands per second,
/// not for hundreds of thousands; while PostgreSQL stalls, the queue of outgoing updates is bounded (the newest
/// position per rider wins; order events and notices are kept); a listener that reconnects has missed what was
/// sent meanwhile (positions heal with the next fix, status changes with the next poll of the snapshot). Beyond
/// that, use a dedicated broker.
final class PostgresTrackingRelay: TrackingRelay, Service {
    static let payloadLimit = 7_000

    private let hub: TrackingHub
    private let database: PostgresDatabase
    private let channel: String
    private let instance = UUID()
    private let logger: Logger
    private let outgoing: BufferedCoalescer<RelayBacklog>
    private let listening = Mutex<[CheckedContinuation<Void, Never>]?>([])

    init(hub: TrackingHub, database: PostgresDatabase, schema: String?, logger: Logger) {
        self.hub = hub
        self.database = database
        // Instances on other schemas of the same database (tests, staging) must not hear each other.
        let suffix = (schema ?? "public").lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
        let channel = String("logistics_tracking_\(suffix)".prefix(63))
        self.channel = channel
        self.logger = logger
        // Everything queued while the previous notification was on its way goes out together; while the database
        // stalls, the backlog keeps only each rider's newest position (`RelayBacklog`).
        let instance = self.instance
        outgoing = BufferedCoalescer(interval: LocationWriter.commitInterval) { updates in
            let payloads = RelayPayload.pack(updates, from: instance, limit: Self.payloadLimit)
            await Self.notify(payloads, channel: channel, database: database, logger: logger)
        }
    }

    /// Sends a batch's payloads in one statement, retrying while the database cannot be reached: they carry order
    /// events, which the other instances' customers must get. Meanwhile later updates wait in the bounded backlog.
    /// A payload the database refuses for itself is logged and dropped, so one bad message cannot hold the relay.
    static func notify(_ payloads: [String], channel: String, database: PostgresDatabase, logger: Logger) async {
        var delay = Duration.milliseconds(250)
        while !Task.isCancelled {
            do {
                try await database.notify(channel: channel, payloads: payloads)
                return
            } catch StoreError.unavailable(let detail) {
                logger.warning("tracking fan-out waits for the database", metadata: ["error": "\(detail)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
            } catch {
                guard payloads.count > 1 else {
                    logger.error("tracking fan-out dropped a refused message", metadata: ["error": "\(error)"])
                    return
                }
                // Only the payload the database refuses is dropped, not the batch it came with.
                for payload in payloads {
                    await notify([payload], channel: channel, database: database, logger: logger)
                }
                return
            }
        }
    }

    func publish(_ updates: [TrackingUpdate]) {
        hub.apply(updates)
        outgoing.submit(updates)
    }

    /// Returns once this instance hears the others (tests wait for it before sending).
    func waitUntilListening() async {
        await withCheckedContinuation { continuation in
            let isListening = listening.withLock { waiting -> Bool in
                guard waiting != nil else { return true }
                waiting!.append(continuation)
                return false
            }
            if isListening { continuation.resume() }
        }
    }

    func run() async throws {
        // The listener runs on its own and is not waited for at shutdown: when PostgreSQL cut the connection while
        // LISTEN was being set up, the call never returned and ignored cancellation, so the service group (and a
        // test's server) waited forever. Closing the pool afterwards (DatabaseLifecycle) ends that call.
        let listener = Task { await self.listenUntilCancelled() }
        try? await gracefulShutdown()
        listener.cancel()
    }

    private func listenUntilCancelled() async {
        while !Task.isCancelled {
            do {
                try await database.listen(channel: channel, onListening: { self.markListening() }) { payload in
                    self.receive(payload)
                }
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                logger.warning(
                    "tracking listener lost its connection; listening again", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    private func markListening() {
        let waiting = listening.withLock { waiting in
            defer { waiting = nil }
            return waiting ?? []
        }
        for continuation in waiting { continuation.resume() }
    }

    private func receive(_ payload: String) {
        guard let (from, updates) = RelayPayload.unpack(payload) else {
            logger.warning("ignoring an unreadable tracking notification")
            return
        }
        guard from != instance else { return }
        hub.apply(updates)
    }
}

/// The compact JSON of a notification: who sent it, fixes as short arrays, events as the outbox's JSON.
enum RelayPayload {
    private struct Wire: Codable {
        var from: UUID
        var fixes: [Fix]
        var events: [String]
        var notices: [Notice]
    }

    private struct Notice: Codable {
        var r: UUID
        var m: String
    }

    private struct Fix: Codable {
        var r: UUID
        var lat: Double
        var lon: Double
        var acc: Double?
        var spd: Double?
        var hdg: Double?
        /// Milliseconds since 1970.
        var t: Int64
    }

    /// Payloads of at most `limit` bytes: the updates are halved until each part fits. A single update larger
    /// than the limit (no fix or event comes near it) is dropped rather than break the notification.
    static func pack(_ updates: [TrackingUpdate], from instance: UUID, limit: Int) -> [String] {
        guard !updates.isEmpty, let data = try? JSONEncoder().encode(wire(updates, from: instance)) else { return [] }
        if data.count <= limit { return [String(decoding: data, as: UTF8.self)] }
        guard updates.count > 1 else { return [] }
        let half = updates.count / 2
        return pack(Array(updates[..<half]), from: instance, limit: limit)
            + pack(Array(updates[half...]), from: instance, limit: limit)
    }

    private static func wire(_ updates: [TrackingUpdate], from instance: UUID) -> Wire {
        var wire = Wire(from: instance, fixes: [], events: [], notices: [])
        for update in updates {
            switch update {
            case .fix(let riderId, let fix):
                wire.fixes.append(
                    Fix(
                        r: riderId, lat: fix.lat, lon: fix.lon, acc: fix.accuracyM, spd: fix.speedMps,
                        hdg: fix.headingDeg, t: fix.recordedAt.epochMillis))
            case .event(let notice):
                wire.events.append(notice.json)
            case .notice(let recipientId, let message):
                wire.notices.append(Notice(r: recipientId, m: message))
            }
        }
        return wire
    }

    static func unpack(_ payload: String) -> (UUID, [TrackingUpdate])? {
        guard let wire = try? JSONDecoder().decode(Wire.self, from: Data(payload.utf8)) else { return nil }
        var updates: [TrackingUpdate] = wire.fixes.map { fix in
            .fix(
                riderId: fix.r,
                fix: LocationFix(
                    lat: fix.lat, lon: fix.lon, accuracyM: fix.acc, speedMps: fix.spd, headingDeg: fix.hdg,
                    recordedAt: Date(epochMillis: fix.t)))
        }
        updates += wire.events.compactMap { OrderEventNotice(json: $0).map { .event($0) } }
        updates += wire.notices.map { .notice(recipientId: $0.r, message: $0.m) }
        return (wire.from, updates)
    }
}

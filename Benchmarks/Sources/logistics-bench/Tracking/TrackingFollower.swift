import Foundation
import NIOCore
import Synchronization

/// One customer's socket and what it saw: every message's seq checked against the last, and each `location`'s
/// latency from its fix's `recordedAt`. Checked on the socket's event loop as the message arrives; the lock is the
/// follower's own, so the two loops never wait for each other (only the bench's reads at the end take it too).
final class TrackingFollower: BenchSocketListener, Sendable {
    struct Seen {
        var snapshot = false
        var lastSeq = -1
        var lastLat: Double?
        var gaps = 0
        var misordered = 0
        var open = false
        /// Each `location` message's latency and when it arrived.
        var deliveries: [(latency: Double, at: Date)] = []
    }

    let order: Int
    let seen = Mutex(Seen())

    init(order: Int) { self.order = order }

    func opened(_ socket: BenchSocket) {
        seen.withLock { $0.open = true }
    }

    func closed() {
        seen.withLock { $0.open = false }
    }

    func received(_ message: ByteBuffer) {
        let received = Date()
        message.withUnsafeReadableBytes { bytes in
            let json = FlatJSON(bytes)
            guard let seq = json.int("seq") else { return }
            let isSnapshot = json.has("type", equalTo: "snapshot")
            let isLocation = !isSnapshot && json.has("type", equalTo: "location")
            let latency = isLocation ? json.date("recordedAt").map { received.timeIntervalSince($0) } : nil
            let lat = isLocation ? json.double("lat") : nil
            seen.withLock { seen in
                if isSnapshot {
                    seen.snapshot = true
                    seen.lastSeq = seq
                    return
                }
                if seq <= seen.lastSeq { seen.misordered += 1 } else if seq > seen.lastSeq + 1 { seen.gaps += 1 }
                seen.lastSeq = max(seen.lastSeq, seq)
                if isLocation { seen.lastLat = lat }
                if let latency { seen.deliveries.append((latency, received)) }
            }
        }
    }
}

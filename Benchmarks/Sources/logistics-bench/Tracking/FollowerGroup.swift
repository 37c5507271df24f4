import Foundation

/// Customers' sockets of one bench process, and what they saw, in a form another process can hand back: a process
/// holds at most 20,000 descriptors here, so more sockets than that are spread over generator processes.
struct FollowerTarget: Sendable {
    var order: Int
    var port: Int
    var orderId: String
    var token: String

    /// One line of a plan file: ids and tokens hold no spaces.
    var line: String { "\(order) \(port) \(orderId) \(token)" }

    init(order: Int, port: Int, orderId: String, token: String) {
        self.order = order
        self.port = port
        self.orderId = orderId
        self.token = token
    }

    init?(line: Substring) {
        let parts = line.split(separator: " ")
        guard parts.count == 4, let order = Int(parts[0]), let port = Int(parts[1]) else { return nil }
        self.init(order: order, port: port, orderId: String(parts[2]), token: String(parts[3]))
    }
}

/// What one customer's socket saw, merged across processes.
struct FollowerReport: Sendable {
    var order: Int
    var open: Bool
    var lastLat: Double?
    var gaps: Int
    var misordered: Int

    /// `Double`'s description reads back as the same value, which the lost check compares exactly.
    var line: String { "\(order) \(open ? 1 : 0) \(lastLat.map { "\($0)" } ?? "-") \(gaps) \(misordered)" }

    init(order: Int, open: Bool, lastLat: Double?, gaps: Int, misordered: Int) {
        self.order = order
        self.open = open
        self.lastLat = lastLat
        self.gaps = gaps
        self.misordered = misordered
    }

    init?(line: Substring) {
        let parts = line.split(separator: " ")
        guard parts.count == 5, let order = Int(parts[0]), let gaps = Int(parts[3]),
            let misordered = Int(parts[4])
        else { return nil }
        self.init(
            order: order, open: parts[1] == "1", lastLat: Double(parts[2]), gaps: gaps, misordered: misordered)
    }
}

/// The sockets of one process: connected 200 at a time, each waiting for its snapshot before the next 200.
final class FollowerGroup: Sendable {
    let followers: [TrackingFollower]

    private init(followers: [TrackingFollower]) { self.followers = followers }

    static func connect(_ targets: [FollowerTarget], progress: (Int) -> Void = { _ in }) async throws
        -> FollowerGroup
    {
        var followers: [TrackingFollower] = []
        for (index, target) in targets.enumerated() {
            let follower = TrackingFollower(order: target.order)
            followers.append(follower)
            BenchSocket.connect(
                port: target.port, path: "/api/v1/customer/orders/\(target.orderId)/tracking", token: target.token
            ) { follower }
            if index % 200 == 199 {
                let count = index + 1
                while followers.prefix(count).contains(where: { !$0.seen.withLock { $0.snapshot } }) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                progress(count)
            }
        }
        let deadline = Date().addingTimeInterval(60)
        while followers.contains(where: { !$0.seen.withLock { $0.snapshot } }) && Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        return FollowerGroup(followers: followers)
    }

    var deliveryCount: Int { followers.reduce(0) { $0 + $1.seen.withLock { $0.deliveries.count } } }

    /// Waits until no message arrived for 2 s (at most 60 s), so nothing still in flight counts as lost.
    func settle() async throws {
        var last = -1
        for _ in 0..<30 {
            let count = deliveryCount
            if count == last { return }
            last = count
            try await Task.sleep(for: .seconds(2))
        }
    }

    func reports() -> [FollowerReport] {
        followers.map { follower in
            let seen = follower.seen.withLock { $0 }
            return FollowerReport(
                order: follower.order, open: seen.open, lastLat: seen.lastLat, gaps: seen.gaps,
                misordered: seen.misordered)
        }
    }

    /// Every `location` message's latency and arrival time.
    func deliveries() -> [(latency: Double, at: Date)] { followers.flatMap { $0.seen.withLock { $0.deliveries } } }
}

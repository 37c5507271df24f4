import AsyncHTTPClient
import Foundation
import LogisticsCore
import LogisticsServer
import NIOCore
import NIOHTTP1
import RiderKit
import Synchronization

/// The client side of the tracking benchmark: orders put in transit through the API, customers' sockets that
/// check every message's seq and time its delivery, and riders posting a fix every 5 s.
final class TrackingLoad: Sendable {
    let bases: [String]
    let ports: [Int]
    let tokens: AccessTokenIssuer
    let riders: Int
    let orders: Int
    let customers: Int
    let path: RiderPath
    private let http: HTTPClient
    private let state = Mutex(State())

    private struct State {
        /// Per order: its rider's token and id, the customer's token, and the last acknowledged latitude.
        var orders: [(rider: String, customer: String, orderId: String)] = []
        var lastAcknowledgedLat: [Int: Double] = [:]
        var group: FollowerGroup?
        var children: [FollowerProcess] = []
        var trafficStart: Date?
    }

    init(
        bases: [String], ports: [Int], tokens: AccessTokenIssuer, riders: Int, orders: Int, customers: Int,
        path: RiderPath
    ) {
        self.bases = bases
        self.path = path
        self.ports = ports
        self.tokens = tokens
        self.riders = riders
        self.orders = orders
        self.customers = customers
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 96)
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async { try? await http.shutdown() }

    /// Orders assigned to riders 0..<O and picked up, created by 32 workers at once.
    func seed() async throws {
        let dispatcher = try await tokens.token(subject: UUID(), role: .dispatcher, ttl: 86_400)
        let calls = BenchCalls(base: bases[0], transport: HTTPRiderTransport(http: http))
        let next = Shared(0)
        let created = Shared([Int: (String, String, String)]())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<min(32, orders) {
                group.addTask {
                    while true {
                        let index = next.value.withLock { value -> Int in
                            defer { value += 1 }
                            return value
                        }
                        guard index < self.orders else { return }
                        let made = try await self.seedOrder(index, dispatcher: dispatcher, calls: calls)
                        let count = created.value.withLock {
                            $0[index] = made
                            return $0.count
                        }
                        if count % 200 == 0 { Console.line("  \(count)/\(self.orders) orders in transit") }
                    }
                }
            }
            try await group.waitForAll()
        }
        let all = created.value.withLock { $0 }
        state.withLock { state in
            state.orders = (0..<orders).map { all[$0]! }.map { (rider: $0.0, customer: $0.1, orderId: $0.2) }
        }
    }

    private func seedOrder(_ index: Int, dispatcher: String, calls: BenchCalls) async throws -> (
        String, String, String
    ) {
        let riderId = self.riderId(index)
        let rider = try await tokens.token(subject: riderId, role: .rider, name: "Bench Rider \(index)", ttl: 86_400)
        let customerId = UUID()
        let customer = try await tokens.token(subject: customerId, role: .customer, ttl: 86_400)
        let riderAPI = calls.rider(rider)
        let office = calls.office(dispatcher)
        _ = try await riderAPI.setAvailability(online: true)
        let orderId = try await office.placeOrder(
            ref: "BENCH", from: DeliveryLoad.store,
            to: CustomerContact(
                id: customerId, name: "Bench Customer", phone: "+377 93 15 00 01", address: "Quai Antoine 1er",
                location: DeliveryLoad.door))
        try await office.markReady(orderId: orderId)
        let offerIds = try await office.offer(orderId: orderId, to: [riderId])
        let taskId = try await riderAPI.accept(offerId: offerIds[0]).taskId
        for status in [TaskStatus.arrivedAtStore, .pickedUp] {
            try await calls.tap(status, taskId: taskId, token: rider, at: DeliveryLoad.store.location, now: Date())
        }
        return (rider, customer, orderId)
    }

    /// Rider ids are fixed per index so a rider with an order and its fixes line up, and new each run so a run on a
    /// PostgreSQL database an earlier run used does not meet that run's riders still on their tasks.
    func riderId(_ index: Int) -> UUID {
        UUID(uuidString: String(format: "%08x-0000-4000-8000-%012x", run, index))!
    }

    private let run = UInt32.random(in: 1...UInt32.max)

    /// C sockets, round-robin over the orders and the instances, 200 connecting at a time; with several generators,
    /// socket i is held by process i % generators (this one is 0), the others started here.
    func connectCustomers(generators: Int = 1, directory: URL) async throws {
        let plan = state.withLock { $0.orders }
        var shares = Array(repeating: [FollowerTarget](), count: generators)
        for index in 0..<customers {
            let order = index % orders
            // A rider posts to instance (order % n); the second follower of each order is on another instance.
            shares[index % generators].append(
                FollowerTarget(
                    order: order, port: ports[(index + index / orders) % ports.count], orderId: plan[order].orderId,
                    token: plan[order].customer))
        }
        var children: [FollowerProcess] = []
        for index in 1..<generators {
            children.append(try FollowerProcess.start(shares[index], in: directory, index: index + 1))
        }
        state.withLock { $0.children = children }
        let local = shares[0].count
        let group = try await FollowerGroup.connect(shares[0]) { count in
            if count % 1000 == 0 {
                Console.line("  \(count)/\(local) sockets following" + (generators > 1 ? " (generator 1)" : ""))
            }
        }
        state.withLock { $0.group = group }
        for child in children { try await child.waitUntilReady() }
    }

    /// Waits until no message arrived for 2 s (at most 60 s), so nothing still in flight counts as lost; the other
    /// generators settle the same way before they report.
    func settle() async throws {
        guard let group = state.withLock({ $0.group }) else { return }
        try await group.settle()
    }

    /// Stops the other generators when the bench ends early.
    func stopGenerators() {
        for child in state.withLock({ $0.children }) { child.stop() }
    }

    struct Traffic {
        var acknowledged: Int
        var failed: Int
        var seconds: Double
        var ackP50: Double
        var ackP99: Double
    }

    /// How the riders' phones send their fixes.
    enum Transport: String, CaseIterable, Sendable {
        /// `POST /rider/locations` over keep-alive connections the riders share, one request in flight on each.
        case http
        /// Each rider's own socket on `WS /rider/stream`.
        case socket
    }

    /// One rider's way to the server over HTTP: a shared keep-alive connection pool and the rider's token.
    private struct Lane: Sendable {
        var poster: KeepAliveClient
        var token: String
    }

    /// Every rider sends one fix every `interval`, their starts spread over the first interval. Riders without an
    /// order are signed in before the clock starts (a first fix over HTTP, the socket's sign-in otherwise): a city's
    /// riders come on shift over hours, not all within the first seconds of a run.
    /// `inFlight`: over sockets, how many of a rider's messages may wait for their answers.
    func drive(
        seconds: Int, interval: Duration, connections: Int, transport: Transport, inFlight: Int, cpu: TrafficCPU
    ) async throws -> Traffic {
        let plan = state.withLock { $0.orders }
        let riderTokens = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in orders..<riders {
                group.addTask {
                    (index, try await self.tokens.token(subject: self.riderId(index), role: .rider, ttl: 86_400))
                }
            }
            var tokens = plan.map(\.rider)
            tokens += Array(repeating: "", count: riders - orders)
            for try await (index, token) in group { tokens[index] = token }
            return tokens
        }
        guard transport == .http else {
            let sockets = try await SocketRiders.signIn(tokens: riderTokens, ports: ports)
            Console.line("Riders sending for \(seconds) s ...")
            state.withLock { $0.trafficStart = Date() }
            let (traffic, lastAcknowledgedLat) = try await SocketRiders.drive(
                sockets, seconds: seconds, interval: interval, orders: orders, path: path, inFlight: inFlight, cpu: cpu)
            state.withLock { $0.lastAcknowledgedLat = lastAcknowledgedLat }
            return traffic
        }
        let (lanes, posters) = try await openLanes(tokens: riderTokens, connections: connections)
        Console.line("Riders sending for \(seconds) s ...")
        let acknowledged = Shared(0)
        let failed = Shared(0)
        let acks = LatencyRecorder()
        cpu.sendingStarts()
        let start = ContinuousClock.now
        let end = start + .seconds(seconds)
        state.withLock { $0.trafficStart = Date() }
        let progress = Self.reportProgress { acknowledged.value.withLock { $0 } }
        defer { progress.cancel() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<riders {
                group.addTask {
                    let offset = interval * (Double(index) / Double(self.riders))
                    var tick = start + offset
                    var step = 0
                    while tick < end {
                        try await Task.sleep(until: tick, clock: .continuous)
                        let lat = self.path.latitude(rider: index, step: step, last: tick + interval >= end)
                        let began = ContinuousClock.now
                        if await self.send(lat: lat, over: lanes[index]) {
                            acknowledged.value.withLock { $0 += 1 }
                            acks.record("ack", seconds: (ContinuousClock.now - began).inSeconds)
                            if index < self.orders { self.state.withLock { $0.lastAcknowledgedLat[index] = lat } }
                        } else {
                            failed.value.withLock { $0 += 1 }
                        }
                        step += 1
                        tick += interval
                    }
                }
            }
            try await group.waitForAll()
        }
        let elapsed = (ContinuousClock.now - start).inSeconds
        cpu.lastAnswered()
        for poster in posters { await poster.close() }
        let row = acks.rows().first
        return Traffic(
            acknowledged: acknowledged.value.withLock { $0 }, failed: failed.value.withLock { $0 },
            seconds: elapsed, ackP50: row?.p50 ?? 0, ackP99: row?.p99 ?? 0)
    }

    /// "N fixes acknowledged" every 5 s until cancelled.
    static func reportProgress(_ acknowledged: @escaping @Sendable () -> Int) -> Task<Void, any Error> {
        Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(5))
                Console.line("  \(acknowledged()) fixes acknowledged")
            }
        }
    }

    /// Rider `i` posts to instance `i % n`; the riders without an order are signed in here, 200 at a time.
    private func openLanes(tokens: [String], connections: Int) async throws -> ([Lane], [KeepAliveClient]) {
        var posters: [KeepAliveClient] = []
        for port in ports {
            posters.append(try await KeepAliveClient.connect(host: "127.0.0.1", port: port, count: connections))
        }
        let lanes = tokens.indices.map { Lane(poster: posters[$0 % posters.count], token: tokens[$0]) }
        var signedIn = 0
        let signIn = Array(orders..<riders)
        Console.line("Signing in \(signIn.count) riders (a first fix each) ...")
        for batch in stride(from: 0, to: signIn.count, by: 200) {
            let count = try await withThrowingTaskGroup(of: Void.self) { group in
                for index in signIn[batch..<min(signIn.count, batch + 200)] {
                    let lane = lanes[index]
                    group.addTask {
                        guard await self.send(lat: 43.7300, over: lane) else {
                            throw BenchFailure(description: "rider \(index)'s first fix was refused")
                        }
                    }
                }
                var count = 0
                for try await _ in group { count += 1 }
                return count
            }
            signedIn += count
            if signedIn % 2000 < 200 || signedIn == signIn.count {
                Console.line("  \(signedIn)/\(signIn.count) riders signed in")
            }
        }
        return (lanes, posters)
    }

    /// CPU seconds of the load-generator processes this one started.
    func childrenCPUSeconds() -> Double {
        state.withLock { $0.children }.reduce(0) { $0 + $1.cpuSeconds }
    }

    private func send(lat: Double, over lane: Lane) async -> Bool {
        let body = #"{"fixes":[\#(path.fixJSON(lat: lat))]}"#
        let request =
            "POST /api/v1/rider/locations HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(lane.token)\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
        return await lane.poster.send(ByteBuffer(string: request)) == 202
    }

    struct Outcome {
        var open: Int
        var deliveries: Int
        var latency: LatencySummary
        /// The same after the first 5 s, once every rider's first fix of the run is in.
        var later: LatencySummary
        /// Per 10 s of the run, by when the message arrived: where a stall happened, not only that it did.
        var byWindow: [LatencySummary]
        var lost: Int
        var misordered: Int
        var gaps: Int
    }

    func outcome() async throws -> Outcome {
        let (group, children, lastLat, start) = state.withLock {
            ($0.group, $0.children, $0.lastAcknowledgedLat, $0.trafficStart ?? .distantPast)
        }
        var followers = group?.reports() ?? []
        var deliveries = group?.deliveries() ?? []
        for child in children {
            let report = try await child.report()
            followers += report.followers
            deliveries += report.deliveries
        }
        var outcome = Outcome(
            open: 0, deliveries: deliveries.count, latency: LatencySummary(deliveries.map(\.latency)),
            later: LatencySummary(deliveries.filter { $0.at.timeIntervalSince(start) >= 5 }.map(\.latency)),
            byWindow: Dictionary(grouping: deliveries) { Int(max(0, $0.at.timeIntervalSince(start)) / 10) }
                .sorted { $0.key < $1.key }.map { LatencySummary($0.value.map(\.latency)) },
            lost: 0, misordered: 0, gaps: 0)
        for seen in followers {
            if seen.open { outcome.open += 1 }
            outcome.misordered += seen.misordered
            outcome.gaps += seen.gaps
            if let expected = lastLat[seen.order], seen.lastLat != expected { outcome.lost += 1 }
        }
        return outcome
    }
}

/// A value several tasks update.
final class Shared<Value: Sendable>: Sendable {
    let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
}

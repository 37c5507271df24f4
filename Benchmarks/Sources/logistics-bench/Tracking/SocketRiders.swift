import NIOCore
import Synchronization

/// The riders of `bench tracking --fixes-over socket`, each on its own `RiderSocket`.
enum SocketRiders {
    /// Opens every rider's socket and waits for its sign-in, 200 at a time; rider `i` talks to instance `i % n`.
    static func signIn(tokens: [String], ports: [Int]) async throws -> [RiderSocket.Handle] {
        Console.line("Signing in \(tokens.count) riders (their sockets) ...")
        var riders: [RiderSocket.Handle] = []
        riders.reserveCapacity(tokens.count)
        for batch in stride(from: 0, to: tokens.count, by: 200) {
            let opening = (batch..<min(tokens.count, batch + 200)).map {
                RiderSocket.open(port: ports[$0 % ports.count], token: tokens[$0])
            }
            for (offset, ready) in opening.enumerated() {
                guard let rider = try? await ready.get() else {
                    throw BenchFailure(description: "rider \(batch + offset)'s socket was refused")
                }
                riders.append(rider)
            }
            if riders.count % 2000 < 200 || riders.count == tokens.count {
                Console.line("  \(riders.count)/\(tokens.count) riders signed in")
            }
        }
        return riders
    }

    /// Every rider sends one fix every `interval` for `seconds`, their starts spread over the first interval; the
    /// riders with an order are the first `orders`. Returns when every fix is answered, with each rider-with-order's
    /// last acknowledged latitude.
    static func drive(
        _ riders: [RiderSocket.Handle], seconds: Int, interval: Duration, orders: Int, path: RiderPath, inFlight: Int,
        cpu: TrafficCPU
    ) async throws
        -> (TrackingLoad.Traffic, lastAcknowledgedLat: [Int: Double])
    {
        let acknowledged = AcknowledgedCount()
        let progress = TrackingLoad.reportProgress { acknowledged.value }
        defer { progress.cancel() }
        cpu.sendingStarts()
        let start = NIODeadline.now()
        let end = start + .seconds(Int64(seconds))
        let finished = riders.enumerated().map { index, rider in
            let tally = rider.eventLoop.makePromise(of: RiderSocket.Tally.self)
            let offset = interval * (Double(index) / Double(riders.count))
            let plan = RiderSocket.Plan(
                index: index, first: start + TimeAmount(offset), interval: TimeAmount(interval), end: end,
                hasOrder: index < orders, path: path, acknowledged: acknowledged, inFlight: inFlight)
            rider.start(plan, finished: tally)
            return tally.futureResult
        }
        var total = RiderSocket.Tally()
        var lastAcknowledgedLat: [Int: Double] = [:]
        for (index, tally) in finished.enumerated() {
            let tally = try await tally.get()
            total.acknowledged += tally.acknowledged
            total.failed += tally.failed
            total.ackSeconds += tally.ackSeconds
            if let lat = tally.lastAcknowledgedLat { lastAcknowledgedLat[index] = lat }
        }
        let elapsed = Double((NIODeadline.now() - start).nanoseconds) / 1e9
        cpu.lastAnswered()
        for rider in riders { rider.close() }
        for rider in riders { try? await rider.closed.get() }
        let acks = total.ackSeconds.sorted()
        let traffic = TrackingLoad.Traffic(
            acknowledged: total.acknowledged, failed: total.failed, seconds: elapsed,
            ackP50: LatencyRecorder.percentile(acks, 0.5), ackP99: LatencyRecorder.percentile(acks, 0.99))
        return (traffic, lastAcknowledgedLat)
    }
}

/// Fixes acknowledged so far across every rider, for the progress lines.
final class AcknowledgedCount: Sendable {
    private let count = Atomic(0)

    func add() { count.add(1, ordering: .relaxed) }

    var value: Int { count.load(ordering: .relaxed) }
}

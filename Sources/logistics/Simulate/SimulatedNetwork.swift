import AsyncHTTPClient
import Foundation
import RiderKit
import Synchronization

/// A rider's mobile network that drops out now and then: while down, every request fails as an unreachable
/// network does, and RiderKit's queue has to hold and replay the rider's taps.
final class SimulatedNetwork: RiderTransport {
    private let downUntil = Mutex<ContinuousClock.Instant?>(nil)
    private let real: HTTPRiderTransport

    init(http: HTTPClient = .shared) { real = HTTPRiderTransport(http: http) }

    func drop(for duration: Duration) { downUntil.withLock { $0 = .now + duration } }

    var isDown: Bool { downUntil.withLock { $0.map { $0 > .now } ?? false } }

    func send(_ request: RiderRequest, timeout: Duration) async throws -> (status: Int, body: Data) {
        if isDown { throw RiderAPIError.transport("no signal") }
        return try await real.send(request, timeout: timeout)
    }
}

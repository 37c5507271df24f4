import Foundation
import RiderKit
import Synchronization

@testable import TestSupport

/// The rider's network, breakable on demand: offline (every request fails before reaching the server), or
/// losing answers (the server gets the request, the phone never hears back).
final class FlakyTransport: RiderTransport {
    struct State {
        var offline = false
        var answersToLose = 0
        var requests: [String] = []
    }

    let state = Mutex(State())
    private let real: any RiderTransport

    init(real: any RiderTransport = HTTPRiderTransport()) { self.real = real }

    var offline: Bool {
        get { state.withLock { $0.offline } }
        set { state.withLock { $0.offline = newValue } }
    }

    func loseAnswers(_ count: Int) { state.withLock { $0.answersToLose = count } }

    var requests: [String] { state.withLock { $0.requests } }

    func send(_ request: RiderRequest, timeout: Duration) async throws -> (status: Int, body: Data) {
        let path = URL(string: request.url)?.path ?? request.url
        let offline = state.withLock { state in
            state.requests.append("\(request.method) \(path)")
            return state.offline
        }
        if offline { throw RiderAPIError.transport("the network is unreachable") }
        let answer = try await real.send(request, timeout: timeout)
        let lose = state.withLock { state in
            guard state.answersToLose > 0 else { return false }
            state.answersToLose -= 1
            return true
        }
        if lose { throw RiderAPIError.transport("timed out waiting for the answer") }
        return answer
    }
}

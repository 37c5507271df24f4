import Foundation

/// Asks `check` every 50 ms until it returns a value or `within` passes; nil then. For effects of background work
/// (a sweep, a dispatcher) that a test cannot await directly.
func eventually<Value>(
    within limit: Duration = .seconds(10), _ check: () async throws -> Value?
) async rethrows -> Value? {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = try await check() { return value }
        if ContinuousClock.now >= deadline { return nil }
        try? await Task.sleep(for: .milliseconds(50))
    }
}

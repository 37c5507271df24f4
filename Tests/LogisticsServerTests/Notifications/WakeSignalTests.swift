import Foundation
import Testing

@testable import LogisticsServer

@Suite("The wake signal of the outbox and notification loops", .timeLimit(.minutes(1)))
struct WakeSignalTests {
    @Test("a ring while the loop waits wakes it at once; one while it works makes its next wait return")
    func rings() async throws {
        let signal = WakeSignal()
        let clock = ContinuousClock()
        let start = clock.now
        async let waited: Void = signal.wait(upTo: .seconds(20))
        try await Task.sleep(for: .milliseconds(50))
        signal.ring()
        await waited
        #expect(clock.now - start < .seconds(5))

        signal.ring()
        let early = clock.now
        await signal.wait(upTo: .seconds(20))
        #expect(clock.now - early < .seconds(5), "a ring before the wait is kept for it")
    }

    @Test("without a ring the wait ends at its timeout, and a cancelled wait ends at once")
    func timeoutAndCancel() async throws {
        let signal = WakeSignal()
        let clock = ContinuousClock()
        let start = clock.now
        await signal.wait(upTo: .milliseconds(100))
        #expect(clock.now - start >= .milliseconds(100))

        let waiting = Task { await signal.wait(upTo: .seconds(20)) }
        try await Task.sleep(for: .milliseconds(50))
        let cancelledAt = clock.now
        waiting.cancel()
        await waiting.value
        #expect(clock.now - cancelledAt < .seconds(5))
        // Many rings and waits in a row: none is lost and none hangs.
        for _ in 0..<200 {
            async let waited: Void = signal.wait(upTo: .seconds(20))
            signal.ring()
            await waited
        }
    }
}

import Foundation
import LogisticsCore
import Testing

@Suite("Who may accept an offer (RDR-BR-001) and what wrong delivery codes do, without a database")
struct OfferAcceptanceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let riderId = UUID()

    func offer(to rider: UUID? = nil, status: OfferStatus = .open, expiresIn seconds: TimeInterval = 30) -> Offer {
        Offer(
            id: UUID(), orderId: UUID(), riderId: rider ?? riderId, status: status, createdAt: now - 10,
            expiresAt: now + seconds)
    }

    func order(status: OrderStatus = .readyForPickup, assignedTo rider: UUID? = nil, task: UUID? = nil) -> Order {
        var order = OrderAccessTests.order(vendor: UUID(), customer: UUID(), rider: rider, status: status)
        order.taskId = task
        return order
    }

    func rider(_ availability: RiderAvailability, activeTask: UUID? = nil) -> Rider {
        Rider(
            id: riderId, name: "R", availability: availability, suspended: false, activeTaskId: activeTask,
            createdAt: now)
    }

    func refusal(_ check: () throws -> Void) -> ErrorCode? {
        do {
            try check()
            return nil
        } catch let error as LogisticsError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test("an open offer to this rider for a free order may be accepted")
    func mayAccept() throws {
        #expect(try OfferAcceptance.decide(offer: offer(), order: order(), riderId: riderId, now: now) == .mayAccept)
        try OfferAcceptance.checkRider(rider(.online))
        try OfferAcceptance.checkReady(order())
    }

    @Test("the winner asking again gets their task back, not a refusal")
    func winnerRetries() throws {
        let task = UUID()
        let decision = try OfferAcceptance.decide(
            offer: offer(status: .accepted), order: order(status: .riderAssigned, assignedTo: riderId, task: task),
            riderId: riderId, now: now + 3_600)
        #expect(decision == .alreadyAccepted(taskId: task))
    }

    @Test("each refusal has its own code, in the order the rider needs to hear it")
    func refusals() {
        func decide(_ offer: Offer, _ order: Order) -> ErrorCode? {
            refusal { _ = try OfferAcceptance.decide(offer: offer, order: order, riderId: riderId, now: now) }
        }
        #expect(decide(offer(to: UUID()), order()) == .forbidden)
        #expect(decide(offer(), order(status: .cancelled)) == .orderCancelled)
        #expect(
            decide(offer(), order(status: .riderAssigned, assignedTo: UUID(), task: UUID())) == .orderAlreadyAssigned)
        // Taken by someone else outranks expired: the rider learns why the order is gone, not that they were slow.
        #expect(
            decide(offer(expiresIn: -1), order(status: .riderAssigned, assignedTo: UUID(), task: UUID()))
                == .orderAlreadyAssigned)
        #expect(decide(offer(expiresIn: -1), order()) == .offerExpired)
        #expect(decide(offer(expiresIn: 0), order()) == .offerExpired)
        #expect(decide(offer(status: .superseded), order()) == .offerExpired)
        #expect(decide(offer(status: .declined), order()) == .offerExpired)
    }

    @Test("the rider must be online and free, and the order ready for pickup")
    func riderState() {
        #expect(refusal { try OfferAcceptance.checkRider(rider(.offline)) } == .riderNotOnline)
        #expect(refusal { try OfferAcceptance.checkRider(rider(.onTask)) } == .riderHasActiveTask)
        #expect(
            refusal { try OfferAcceptance.checkRider(rider(.online, activeTask: UUID())) }
                == .riderHasActiveTask)
        #expect(
            refusal { try OfferAcceptance.checkReady(order(status: .preparing)) }
                == .invalidStatusTransition)
    }

    @Test("wrong delivery codes count down to a lock at the fifth")
    func wrongCodes() {
        var failures = 0
        var outcomes: [OTPAttemptOutcome] = []
        for _ in 0..<DeliveryRules.maximumOTPAttempts {
            let next = DeliveryCodeAttempts.afterWrongCode(previousFailures: failures)
            failures = next.failures
            outcomes.append(next.outcome)
        }
        #expect(outcomes == [4, 3, 2, 1].map { .wrong(attemptsRemaining: $0) } + [.locked])
        let task = DeliveryTask(
            id: UUID(), orderId: UUID(), riderId: riderId, offerId: nil, status: .arrivedAtDestination,
            acceptedAt: now, updatedAt: now)
        #expect(DeliveryCodeAttempts.answerWithoutChecking(task) == nil)
        var locked = task
        locked.otpFailedAttempts = failures
        #expect(DeliveryCodeAttempts.answerWithoutChecking(locked) == .locked)
        var proven = task
        proven.podAccepted = true
        #expect(DeliveryCodeAttempts.answerWithoutChecking(proven) == .verified)
    }
}

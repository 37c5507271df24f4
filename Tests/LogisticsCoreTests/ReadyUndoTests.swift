import Foundation
import LogisticsCore
import Testing

@Suite("A store takes Ready back within a minute; what the store is told of the rider coming")
struct ReadyUndoTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func order(_ status: OrderStatus, readyAgo seconds: TimeInterval? = 10, rider: UUID? = nil, task: UUID? = nil)
        -> Order
    {
        var order = OrderAccessTests.order(vendor: UUID(), customer: UUID(), rider: rider, status: status)
        order.readyAt = seconds.map { now - $0 }
        order.taskId = task
        return order
    }

    func refusal(_ order: Order) -> LogisticsError? {
        do {
            _ = try ReadyUndo.decide(order, now: now)
            return nil
        } catch {
            return error as? LogisticsError
        }
    }

    @Test("within the minute: back to preparing, or the rider who accepted keeps the order")
    func withinTheMinute() throws {
        #expect(try ReadyUndo.decide(order(.readyForPickup), now: now) == .backToPreparing)
        #expect(try ReadyUndo.decide(order(.readyForPickup, readyAgo: 60), now: now) == .backToPreparing)
        #expect(try ReadyUndo.decide(order(.riderAssigned, rider: UUID()), now: now) == .keepRider)
        #expect(ReadyUndo.undoableUntil(order(.readyForPickup, readyAgo: 10)) == now + 50)
    }

    @Test("not ready, or already taken back: nothing to undo")
    func nothingToUndo() throws {
        #expect(try ReadyUndo.decide(order(.preparing, readyAgo: nil), now: now) == .nothingToUndo)
        #expect(try ReadyUndo.decide(order(.pendingVendorAcceptance, readyAgo: nil), now: now) == .nothingToUndo)
        // A rider sent ahead on the preparation time, before the store said ready.
        #expect(try ReadyUndo.decide(order(.riderAssigned, readyAgo: nil, rider: UUID()), now: now) == .nothingToUndo)
        #expect(ReadyUndo.undoableUntil(order(.preparing, readyAgo: nil)) == nil)
    }

    @Test("after the minute: READY_UNDO_EXPIRED, saying until when it could")
    func afterTheMinute() {
        let error = refusal(order(.readyForPickup, readyAgo: 61))
        #expect(error?.code == .readyUndoExpired && error?.code.httpStatus == 409)
        #expect(error?.extras["undoableUntil"] == .string(RFC3339.string(from: now - 1)))
    }

    @Test("once a rider has the parcel, or the order was cancelled: refused whatever the time")
    func parcelGone() {
        for status in [OrderStatus.inTransit, .arrivedAtDestination, .delivered, .returningToStore, .failed] {
            let error = refusal(order(status, readyAgo: 5, rider: UUID()))
            #expect(error?.code == .invalidStatusTransition, "\(status)")
            #expect(error?.extras["currentStatus"] == .string(status.rawValue))
            #expect(ReadyUndo.undoableUntil(order(status, readyAgo: 5)) == nil)
        }
        #expect(refusal(order(.cancelled, readyAgo: 5))?.code == .orderCancelled)
    }

    func step(_ status: TaskStatus, task: UUID, at seconds: TimeInterval) -> OrderEvent {
        OrderEvent(
            id: UUID(), orderId: UUID(), taskId: task, seq: 1, type: OrderEventType.deliveryStatusUpdated,
            status: status.rawValue, occurredAt: now + seconds, receivedAt: now + seconds, location: nil,
            actorId: UUID(), actorRole: .rider)
    }

    @Test("the rider coming: on the way, at the store since the tap, gone with the parcel; another task's do not count")
    func pickupProgress() {
        let task = UUID()
        let earlier = UUID()
        let rider = UUID()
        #expect(PickupProgress.of(order(.readyForPickup), events: []).stage == .waitingForRider)
        let assigned = order(.riderAssigned, rider: rider, task: task)
        // The first rider, reassigned after arriving: their arrival is not the new rider's.
        let firstRider = step(.arrivedAtStore, task: earlier, at: -300)
        #expect(PickupProgress.of(assigned, events: [firstRider]) == PickupProgress(stage: .onTheWay))
        let arrived = step(.arrivedAtStore, task: task, at: -60)
        #expect(
            PickupProgress.of(assigned, events: [firstRider, arrived])
                == PickupProgress(stage: .atTheStore, arrivedAt: now - 60))
        let gone = order(.inTransit, rider: rider, task: task)
        #expect(
            PickupProgress.of(gone, events: [arrived, step(.pickedUp, task: task, at: -30)])
                == PickupProgress(stage: .pickedUp, arrivedAt: now - 60, pickedUpAt: now - 30))
    }
}

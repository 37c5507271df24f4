import LogisticsCore
import Testing

@Suite("Delivery status sequence")
struct TaskStatusTests {
    @Test("the rider's path is ACCEPTED → ARRIVED_AT_STORE → PICKED_UP → ARRIVED_AT_DESTINATION → DELIVERED")
    func happyPath() {
        var status = TaskStatus.accepted
        var path = [status]
        while let next = status.allowedNext.first {
            status = next
            path.append(next)
        }
        #expect(path == [.accepted, .arrivedAtStore, .pickedUp, .arrivedAtDestination, .delivered])
    }

    @Test("FAILED only from PICKED_UP or ARRIVED_AT_DESTINATION; final states lead nowhere")
    func failure() {
        #expect(TaskStatus.allCases.filter { $0.allowedNext.contains(.failed) } == [.pickedUp, .arrivedAtDestination])
        for status in TaskStatus.allCases where status.isFinal { #expect(status.allowedNext.isEmpty) }
        #expect(!TaskStatus.accepted.allowedNext.contains(.arrivedAtDestination))
    }

    @Test("the customer sees IN_TRANSIT once the parcel is picked up")
    func customerStatus() {
        #expect(TaskStatus.pickedUp.orderStatus == .inTransit)
        #expect(TaskStatus.arrivedAtStore.orderStatus == .riderAssigned)
    }

    @Test("unknown proof-of-delivery types fall back to PHOTO")
    func podFallback() {
        #expect(ProofOfDeliveryType.lenient("OTP") == (.otp, false))
        #expect(ProofOfDeliveryType.lenient("otp") == (.otp, false))
        #expect(ProofOfDeliveryType.lenient("SIGNATURE") == (.photo, true))
        #expect(ProofOfDeliveryType.lenient(nil) == (.photo, false))
    }
}

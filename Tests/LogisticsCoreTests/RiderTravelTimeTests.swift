import Foundation
import LogisticsCore
import Testing

@Suite struct RiderTravelTimeTests {
    @Test func aBicycleIsNeverFasterThanItsCruisingSpeed() {
        // 1 km the router rides in 60 s (a motorbike at 60 km/h): a bicycle at 15 km/h needs 240 s.
        #expect(RiderTravelTime.seconds(roadSeconds: 60, distanceM: 1000, vehicle: .bicycle) == 240)
    }

    @Test func aSlowRoadStaysSlowForABicycle() {
        // A jam the router already times at 10 km/h is no quicker by bicycle.
        #expect(RiderTravelTime.seconds(roadSeconds: 360, distanceM: 1000, vehicle: .bicycle) == 360)
    }

    @Test func motorbikesCarsAndUnknownVehiclesKeepTheRoutersTime() {
        for vehicle in [Vehicle.motorcycle, .car, nil] {
            #expect(RiderTravelTime.seconds(roadSeconds: 60, distanceM: 1000, vehicle: vehicle) == 60)
        }
    }

    @Test func withoutALengthOrAPathTheRoutersAnswerStands() {
        #expect(RiderTravelTime.seconds(roadSeconds: 60, distanceM: nil, vehicle: .bicycle) == 60)
        #expect(RiderTravelTime.seconds(roadSeconds: 0, distanceM: 0, vehicle: .bicycle) == 0)
        let noPath: Double? = nil
        #expect(RiderTravelTime.seconds(ofCell: noPath, distanceM: 1000, vehicle: .bicycle) == nil)
        #expect(RiderTravelTime.seconds(ofCell: 60, distanceM: 500, vehicle: .bicycle) == 120)
    }

    @Test func onlyTheBicycleHasACruisingSpeed() {
        #expect(Vehicle.allCases.filter { $0.cruisingSpeedKmh != nil } == [.bicycle])
        #expect(Vehicle.bicycle.cruisingSpeedKmh == 15)
    }
}

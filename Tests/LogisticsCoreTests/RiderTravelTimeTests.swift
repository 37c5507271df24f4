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

    static func route(seconds: Double, metres: Double) -> Route {
        let step = { (share: Double) in
            RouteStep(
                maneuver: Maneuver(
                    type: "continue", modifier: nil, location: GeoPoint(lat: 43.7, lon: 7.4), bearingAfter: 0,
                    exit: nil),
                name: "Boulevard", distanceM: metres * share, durationS: seconds * share, instruction: "Go on",
                voiceInstructions: [], geometryStart: 0, geometryEnd: 1)
        }
        return Route(
            distanceM: metres, durationS: seconds, etaAt: "2026-12-08T10:00:00Z", geometry: "",
            legs: [RouteLeg(distanceM: metres, durationS: seconds, steps: [step(0.25), step(0.75)])],
            congestion: ["LOW"], provider: "builtin", dataAgeS: nil, waypoints: [])
    }

    @Test func aBicyclesRouteIsStretchedStepByStepAndArrivesLater() {
        let timed = RiderTravelTime.timed(Self.route(seconds: 60, metres: 1000), vehicle: .bicycle)
        #expect(timed.durationS == 240)
        #expect(timed.legs[0].durationS == 240)
        #expect(timed.legs[0].steps.map(\.durationS) == [60, 180])
        #expect(RFC3339.date(from: timed.etaAt) == RFC3339.date(from: "2026-12-08T10:03:00Z"))
        #expect(timed.distanceM == 1000 && timed.legs[0].steps.map(\.distanceM) == [250, 750])
    }

    @Test func aMotorbikesRouteAndASlowEnoughOneAreLeftAsTheyAre() {
        let route = Self.route(seconds: 60, metres: 1000)
        #expect(RiderTravelTime.timed(route, vehicle: .motorcycle) == route)
        #expect(RiderTravelTime.timed(route, vehicle: nil) == route)
        let jammed = Self.route(seconds: 400, metres: 1000)
        #expect(RiderTravelTime.timed(jammed, vehicle: .bicycle) == jammed)
    }
}

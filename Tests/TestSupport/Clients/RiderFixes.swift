import Foundation
import LogisticsCore
import Testing

/// Location fixes as the rider app sends them, stamped by the test server's clock.
enum RiderFixes {
    /// One fix recorded `secondsAgo` before the server's now.
    static func fix(_ server: TestServer, lat: Double, lon: Double = 7.42, secondsAgo: Double, accuracyM: Double = 5)
        -> [String: Any]
    {
        [
            "lat": lat, "lon": lon, "accuracyM": accuracyM, "speedMps": 4.2, "headingDeg": 90,
            "recordedAt": RFC3339.string(from: server.clock.now().addingTimeInterval(-secondsAgo)),
        ]
    }

    /// Posts one fix for the rider, recorded `seconds` after the server's now, and expects it taken.
    static func post(_ server: TestServer, rider: String, lat: Double, lon: Double = 7.4262, after seconds: Double = 0)
        async throws
    {
        let fix: [String: Any] = [
            "lat": lat, "lon": lon, "accuracyM": 5, "speedMps": 6, "headingDeg": 180,
            "recordedAt": RFC3339.string(from: server.clock.now().addingTimeInterval(seconds)),
        ]
        let reply = try await server.send(.post, "/api/v1/rider/locations", token: rider, json: ["fixes": [fix]])
        #expect(reply.status == 202)
    }
}

extension DeliveryScenario {
    /// An order in transit: assigned, at the store, picked up.
    static func inTransit(_ server: TestServer, podType: String = "OTP") async throws
        -> (scenario: DeliveryScenario, rider: String, taskId: String)
    {
        let scenario = try await DeliveryScenario.ready(server, podType: podType)
        let (_, rider, taskId) = try await scenario.assigned()
        for status in ["ARRIVED_AT_STORE", "PICKED_UP"] {
            let reply = try await scenario.status(taskId, status, rider: rider, lat: 43.7396, lon: 7.4276)
            #expect(reply.status == 200)
        }
        return (scenario, rider, taskId)
    }
}

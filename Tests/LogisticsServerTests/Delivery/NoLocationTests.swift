import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// A tap without a position: accepted only with the reason the phone had none, which the event log keeps; at the
/// door the rider must say they are there, since nothing can check it.
@Suite("Status changes without a position", .timeLimit(.minutes(2)))
struct NoLocationTests {
    static func tap(
        _ scenario: DeliveryScenario, _ taskId: String, _ status: String, rider: String, _ extra: [String: Any]
    )
        async throws -> Reply
    {
        var body: [String: Any] = [
            "status": status, "occurredAt": RFC3339.string(from: scenario.server.clock.now()),
            "eventId": UUID().uuidString.lowercased(),
        ]
        for (key, value) in extra { body[key] = value }
        return try await scenario.server.send(.patch, "/api/v1/rider/tasks/\(taskId)/status", token: rider, json: body)
    }

    @Test(
        "no position and no reason is 400; with NO_FIX the change is made and the reason logged",
        arguments: StoreKind.available)
    func reasons(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            let refused = try await Self.tap(scenario, taskId, "ARRIVED_AT_STORE", rider: rider, [:])
            #expect(refused.status == 400)
            #expect(ValidationTests.fields(refused) == ["location"])
            let odd = try await Self.tap(
                scenario, taskId, "ARRIVED_AT_STORE", rider: rider, ["noLocationReason": "LAZY"])
            #expect(odd.status == 400)

            let made = try await Self.tap(
                scenario, taskId, "ARRIVED_AT_STORE", rider: rider, ["noLocationReason": "PERMISSION_DENIED"])
            #expect(made.status == 200, "\(made.text)")
            #expect(
                try await Self.tap(scenario, taskId, "PICKED_UP", rider: rider, ["noLocationReason": "INSECURE_ORIGIN"])
                    .status == 200)
            // At the door nothing can check where the rider is: the same question as when far away.
            let unsure = try await Self.tap(
                scenario, taskId, "ARRIVED_AT_DESTINATION", rider: rider, ["noLocationReason": "NO_FIX"])
            #expect(unsure.status == 409 || unsure.status == 422, "\(unsure.status)")
            #expect(unsure.code == "GEOFENCE_CONFIRMATION_REQUIRED")
            let confirmed = try await Self.tap(
                scenario, taskId, "ARRIVED_AT_DESTINATION", rider: rider,
                ["noLocationReason": "NO_FIX", "farFromDestinationConfirmed": true])
            #expect(confirmed.status == 200)

            let log = try await server.send(
                .get, "/api/v1/orders/\(scenario.orderId)/events", token: scenario.dispatcher)
            let taps = try #require(log["events"] as? [[String: Any]]).filter {
                $0["type"] as? String == "DeliveryStatusUpdated"
            }
            #expect(taps.count == 3)
            let reasons = taps.map { ($0["details"] as? [String: Any])?["noLocationReason"] as? String }
            #expect(reasons == ["PERMISSION_DENIED", "INSECURE_ORIGIN", "NO_FIX"])
            #expect(taps.allSatisfy { $0["location"] == nil || $0["location"] is NSNull })
            #expect(taps.last?["geofenceOverride"] as? Bool == true)
        }
    }
}

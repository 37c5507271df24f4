import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// Dispatchers run the fleet from the People tab: they add riders and suspend or reinstate them, and are refused
/// (403, nothing written) for a store's staff, dispatchers and admins. Admins give anyone a phone.
@Suite("Dispatchers and riders: who may add and suspend whom", .timeLimit(.minutes(3)))
struct DispatcherPeopleTests {
    @Test("a dispatcher adds a rider, suspends and reinstates them", arguments: StoreKind.available)
    func dispatcherManagesRiders(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let dispatcher = try await server.token(.dispatcher)
            let added = try await server.send(
                .post, "/api/v1/riders", token: dispatcher,
                json: ["name": "Nina Costa", "phone": "+37799445561", "vehicle": "BICYCLE"])
            #expect(added.status == 201, "\(added.text)")
            let riderId = try #require(added["personId"] as? String)
            let suspended = try await server.send(
                .patch, "/api/v1/riders/\(riderId)", token: dispatcher, json: ["suspended": true])
            #expect(suspended.status == 200 && suspended["suspended"] as? Bool == true, "\(suspended.text)")
            let reinstated = try await server.send(.post, "/api/v1/riders/\(riderId)/reinstate", token: dispatcher)
            #expect(reinstated.status == 200, "\(reinstated.text)")
            let again = try await server.send(.post, "/api/v1/riders/\(riderId)/suspend", token: dispatcher)
            #expect(again.status == 200, "\(again.text)")
            let shown = try await server.send(.get, "/api/v1/riders/\(riderId)", token: dispatcher)
            #expect(shown["suspended"] as? Bool == true, "\(shown.text)")
        }
    }

    @Test(
        "a dispatcher adding or suspending a store's staff, a dispatcher or an admin is 403, nothing written",
        arguments: StoreKind.available)
    func dispatcherRefusedForStaff(kind: StoreKind) async throws {
        try await TestServer.run(kind) { server in
            let admin = try await server.token(.admin)
            let dispatcher = try await server.token(.dispatcher)
            let store = try await server.send(
                .post, "/api/v1/vendors", token: admin,
                json: ["name": "Café de Paris", "address": "Monaco", "location": ["lat": 43.73, "lon": 7.42]])
            let storeId = try #require(store["vendorId"] as? String)
            let colleague = try await server.send(
                .post, "/api/v1/staff", token: admin,
                json: ["name": "Avery Admin", "phone": "+37799445570", "role": "admin"])
            let adminId = try #require(colleague["personId"] as? String)
            let people = try await server.count("people")

            for role in ["dispatcher", "admin"] {
                let refused = try await server.send(
                    .post, "/api/v1/staff", token: dispatcher,
                    json: ["name": "New \(role)", "phone": "+37799445571", "role": role])
                #expect(refused.status == 403 && refused.code == "FORBIDDEN", "\(role): \(refused.text)")
            }
            let staffMember = try await server.send(
                .post, "/api/v1/vendors/\(storeId)/staff", token: dispatcher,
                json: ["name": "Sofia", "phone": "+37799445572"])
            #expect(staffMember.status == 403, "\(staffMember.text)")
            let suspendAdmin = try await server.send(
                .patch, "/api/v1/people/\(adminId)", token: dispatcher, json: ["suspended": true])
            #expect(suspendAdmin.status == 403, "\(suspendAdmin.text)")
            // An admin's id named as a rider's is no rider: nobody is suspended through the riders' routes.
            let asRider = try await server.send(
                .patch, "/api/v1/riders/\(adminId)", token: dispatcher, json: ["suspended": true])
            #expect(asRider.status == 404, "\(asRider.text)")

            #expect(try await server.count("people") == people)
            #expect(try await server.count("people", "suspended_at IS NOT NULL") == 0)
        }
    }

    @Test("an admin gives a rider met through a token, who has no phone yet, a phone, and corrects it")
    func adminGivesAPhone() async throws {
        try await TestServer.run(.sqlite) { server in
            let admin = try await server.token(.admin)
            let riderId = UUID()
            let rider = try await server.token(.rider, riderId, name: "Omar Haddad")
            #expect(try await server.send(.get, "/api/v1/rider/me", token: rider).status == 200)
            let before = try await server.send(.get, "/api/v1/people/\(riderId.lowercased)", token: admin)
            #expect(before.status == 200 && before["phone"] == nil, "\(before.text)")
            let given = try await server.send(
                .patch, "/api/v1/people/\(riderId.lowercased)", token: admin, json: ["phone": "+37799445580"])
            #expect(given.status == 200 && given["phone"] as? String == "+37799445580", "\(given.text)")
            let corrected = try await server.send(
                .patch, "/api/v1/people/\(riderId.lowercased)", token: admin, json: ["phone": "+37799445581"])
            #expect(corrected["phone"] as? String == "+37799445581")
            let bad = try await server.send(
                .patch, "/api/v1/people/\(riderId.lowercased)", token: admin, json: ["phone": "12"])
            #expect(bad.status == 400 && bad.code == "VALIDATION_FAILED")
        }
    }
}

import Foundation
import LogisticsCore
import LogisticsServer
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// People an admin adds: stores with their staff, and one person per phone.
@Suite("People: stores, staff and phones", .timeLimit(.minutes(5)))
struct PeopleTests {
    @Test("stores and their staff: added, listed by words and pages, changed; staff sign in as their store")
    func storesAndStaff() async throws {
        try await SignInTests.withTwilio(.sqlite) { twilio, server in
            let admin = try await server.token(.admin)
            var ids: [String] = []
            for name in ["Café de Paris", "Boulangerie Grimaldi", "Café du Port"] {
                let store = try await server.send(
                    .post, "/api/v1/vendors", token: admin,
                    json: ["name": name, "address": "Monaco", "location": ["lat": 43.73, "lon": 7.42]])
                #expect(store.status == 201, "\(store.text)")
                ids.append(try #require(store["vendorId"] as? String))
            }
            let cafes = try await server.send(.get, "/api/v1/vendors?q=caf&limit=1", token: admin)
            let first = (cafes["vendors"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            let cursor = try #require(cafes["nextCursor"] as? String)
            let escaped = cursor.replacingOccurrences(of: "|", with: "%7C")
            let next = try await server.send(.get, "/api/v1/vendors?q=caf&limit=1&cursor=\(escaped)", token: admin)
            let second = (next["vendors"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
            #expect(first + second == ["Café de Paris", "Café du Port"] && next["nextCursor"] == nil)
            let changed = try await server.send(
                .patch, "/api/v1/vendors/\(ids[0])", token: admin,
                json: ["phone": "+37793150000", "name": "Café de Paris"])
            #expect(changed.status == 200 && changed["phone"] as? String == "+37793150000")
            let bad = try await server.send(
                .patch, "/api/v1/vendors/\(ids[0])", token: admin, json: ["location": ["lat": 91, "lon": 7.42]])
            #expect(bad.status == 400 && ValidationTests.fields(bad) == ["location.lat"])
            #expect(
                try await server.send(.patch, "/api/v1/vendors/\(UUID().lowercased)", token: admin, json: [:]).status
                    == 404)

            let staff = try await server.send(
                .post, "/api/v1/vendors/\(ids[0])/staff", token: admin,
                json: ["name": "Sofia", "phone": "+37799770099"])
            #expect(
                staff.status == 201 && staff["role"] as? String == "vendor" && staff["vendorId"] as? String == ids[0])
            let signedIn = try await SignInTests.signIn(server, twilio, phone: "+37799770099")
            #expect(signedIn["role"] as? String == "vendor" && signedIn["subject"] as? String == ids[0])
            let own = try await server.send(
                .get, "/api/v1/vendors/\(ids[0])", token: signedIn["accessToken"] as? String)
            #expect(own.status == 200 && own["name"] as? String == "Café de Paris")
            #expect(
                try await server.send(.get, "/api/v1/vendors/\(ids[1])", token: signedIn["accessToken"] as? String)
                    .status == 404)
            let listed = try await server.send(.get, "/api/v1/people?role=vendor&vendorId=\(ids[0])", token: admin)
            #expect((listed["people"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["Sofia"])
        }
    }

    @Test("a phone belongs to one person: 409 PHONE_IN_USE, also for ten creations at once")
    func onePersonPerPhone() async throws {
        try await SignInTests.withTwilio(.sqlite) { twilio, server in
            let admin = try await server.token(.admin)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<10 {
                    group.addTask {
                        try await server.send(
                            .post, "/api/v1/riders", token: admin,
                            json: ["name": "Twin \(index)", "phone": "+37799555666", "vehicle": "BICYCLE"]
                        ).status
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [201] + Array(repeating: 409, count: 9))
            let staff = try await server.send(
                .post, "/api/v1/staff", token: admin,
                json: ["name": "Dispatcher", "phone": "+37799555666", "role": "dispatcher"])
            #expect(staff.status == 409 && staff.code == "PHONE_IN_USE")
            #expect(try await server.count("people", "phone = ?", [.text("+37799555666")]) == 1)
        }
    }
}

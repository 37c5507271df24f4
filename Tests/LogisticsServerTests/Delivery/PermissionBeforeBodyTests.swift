import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

/// Who may post is checked before a byte of the body is read, `Idempotency-Key` or not; and a photo the locked
/// check refuses leaves no file.
@Suite("Permission before body", .timeLimit(.minutes(3)))
struct PermissionBeforeBodyTests {
    /// Sends only the head of a 10 MiB photo upload with an `Idempotency-Key`; the answer, if one comes within 3 s.
    static func headOnly(_ server: TestServer, taskId: String, token: String) async throws -> String {
        let socket = try RawSocket(port: server.port)
        try socket.write(
            "POST /api/v1/rider/tasks/\(taskId)/pod HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
                + "Idempotency-Key: \(UUID())\r\nContent-Type: multipart/form-data; boundary=photo\r\n"
                + "Content-Length: \(10 * 1024 * 1024)\r\n\r\n")
        let answer = await socket.read(within: .seconds(3)) { String(decoding: $0, as: UTF8.self).contains("\r\n\r\n") }
        return String(decoding: answer.bytes, as: UTF8.self)
    }

    @Test("a customer's or another rider's keyed 10 MiB upload is refused from its head; the task's rider is read")
    func refusedFromTheHead() async throws {
        try await TestServer.run(.sqlite, mode: .live) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let customer = try await Self.headOnly(server, taskId: taskId, token: scenario.customer)
            #expect(customer.hasPrefix("HTTP/1.1 403"), "\(customer)")
            let stranger = try await Self.headOnly(server, taskId: taskId, token: try await server.token(.rider))
            #expect(stranger.hasPrefix("HTTP/1.1 403"), "\(stranger)")
            // The task's own rider is let through to send the body: nothing is answered before it arrives.
            let owner = try await Self.headOnly(server, taskId: taskId, token: rider)
            #expect(owner.isEmpty, "\(owner)")
        }
    }

    @Test(
        "20 photos at once for a task with room for 5: the refused ones leave no file", arguments: StoreKind.available)
    func refusedPhotosLeaveNoFile(kind: StoreKind) async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("photo-race-\(UUID())")
        defer { try? FileManager.default.removeItem(at: blobs) }
        try await TestServer.run(kind, mode: .live, configure: { $0.blobDirectoryOverride = blobs.path }) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    let form = Photos.multipart(photo: Photos.jpeg + [UInt8(index)], fields: Photos.fields(server))
                    group.addTask {
                        try await ConcurrentClient.send(
                            port: server.port, .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider,
                            jsonBody: form.body,
                            headers: ["Content-Type": form.contentType, "Idempotency-Key": "photo-\(index)"]
                        ).status
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == DeliveryRules.maximumPhotosPerTask)
            #expect(statuses.allSatisfy { $0 == 201 || $0 == 409 }, "\(statuses)")
            #expect(try await server.count("proofs_of_delivery") == DeliveryRules.maximumPhotosPerTask)
            #expect(try BlobFiles.count(in: blobs) == DeliveryRules.maximumPhotosPerTask)
        }
    }
}

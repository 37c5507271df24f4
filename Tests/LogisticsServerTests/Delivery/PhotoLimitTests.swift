import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import TestSupport

@Suite("Photos per task are capped", .timeLimit(.minutes(3)))
struct PhotoLimitTests {
    @Test(
        "five photos are accepted; the sixth is 409 CONFLICT with maximumPhotos, stores no file and changes nothing",
        arguments: StoreKind.available)
    func sixthPhotoRefused(kind: StoreKind) async throws {
        let blobs = FileManager.default.temporaryDirectory.appendingPathComponent("photo-limit-\(UUID())")
        defer { try? FileManager.default.removeItem(at: blobs) }
        try await TestServer.run(kind, configure: { $0.blobDirectoryOverride = blobs.path }) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            // Different bytes each time, so each photo is its own file.
            func photo(_ index: Int) -> (body: Data, contentType: String) {
                Photos.multipart(photo: Photos.jpeg + [UInt8(index)], fields: Photos.fields(server))
            }
            for index in 0..<DeliveryRules.maximumPhotosPerTask {
                let form = photo(index)
                let stored = try await server.send(
                    .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body,
                    contentType: form.contentType)
                #expect(stored.status == 201)
            }
            #expect(try BlobFiles.count(in: blobs) == DeliveryRules.maximumPhotosPerTask)
            let before = try await scenario.snapshot()

            let form = photo(99)
            let refused = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body,
                contentType: form.contentType)
            #expect(refused.status == 409)
            #expect(refused.code == "CONFLICT")
            #expect(refused["maximumPhotos"] as? Int == DeliveryRules.maximumPhotosPerTask)
            #expect(refused.contentType == "application/problem+json")
            #expect(try await scenario.snapshot() == before)
            #expect(try await server.count("proofs_of_delivery") == DeliveryRules.maximumPhotosPerTask)
            // Refused before the photo was read, so no file without a row is left behind.
            #expect(try BlobFiles.count(in: blobs) == DeliveryRules.maximumPhotosPerTask)

            // The transaction checks again, for a photo that passed the early check while another was stored.
            let task = try #require(try await server.components.repository.task(id: UUID(uuidString: taskId)!))
            let riderActor = Actor(id: task.riderId, role: .rider)
            let late = ProofOfDelivery(
                id: UUID(), taskId: task.id, orderId: task.orderId, type: "PHOTO",
                sha256: String(repeating: "a", count: 64),
                contentType: "image/jpeg", byteSize: 1, capturedAt: server.clock.now(),
                location: GeoPoint(lat: 43.7347, lon: 7.4240, accuracyM: 5), createdBy: riderActor.id,
                createdAt: server.clock.now())
            let error = await #expect(throws: LogisticsError.self) {
                _ = try await server.components.repository.recordPhotoProof(
                    late, by: riderActor, now: server.clock.now(), geofenceRadiusM: 500, storeFile: {})
            }
            #expect(error?.code == .conflict)
            #expect(try await server.count("proofs_of_delivery") == DeliveryRules.maximumPhotosPerTask)
        }
    }
}

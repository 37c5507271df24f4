import Foundation
import LogisticsCore
import LogisticsStore
import Testing

@testable import LogisticsServer
@testable import TestSupport

@Suite("Photo files without a proof are removed", .timeLimit(.minutes(3)))
struct BlobSweepTests {
    @Test(
        "a file left by a crash before its row is removed once past the hour's grace; referenced files stay",
        arguments: StoreKind.available)
    func orphans(kind: StoreKind) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestServer.run(kind, configure: { $0.blobDirectoryOverride = directory.path }) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let form = Photos.multipart(photo: Photos.jpeg, fields: Photos.fields(server))
            let stored = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
            #expect(stored.status == 201)
            // What the route does before its transaction, without the transaction: the crash's leftover.
            let orphan = try await server.components.blobs.put(Photos.png)
            #expect(try BlobFiles.count(in: directory) == 2)

            let sweep = BlobSweep(repository: server.repository, blobs: server.components.blobs)
            #expect(try await sweep.run(now: server.clock.now()) == 0)
            #expect(try BlobFiles.count(in: directory) == 2)

            server.clock.advance(by: 2 * 3600)
            #expect(try await sweep.run(now: server.clock.now()) == 1)
            #expect(try await server.components.blobs.get(sha256: orphan) == nil)
            #expect(try await server.components.blobs.get(sha256: stored["sha256"] as? String ?? "") == Photos.jpeg)
            #expect(try await sweep.run(now: server.clock.now()) == 0)
        }
    }

    @Test("storing existing bytes again renews the file's date, so the sweep leaves it to the proof being written")
    func storingAgainRenews() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sweep-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let blobs = FileBlobStore(directory: directory.path)
        let digest = try await blobs.put(Photos.png)
        let file = directory.appendingPathComponent(String(digest.prefix(2))).appendingPathComponent(digest)
        let twoDaysAgo = Date().addingTimeInterval(-2 * 24 * 3600)
        try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: file.path)
        // A write in progress is not a blob.
        try Data("partial".utf8).write(to: directory.appendingPathComponent(".\(UUID().uuidString).tmp"))
        let anHourAgo = Date().addingTimeInterval(-3600)
        #expect(try await blobs.digests(storedBefore: anHourAgo) == [digest])

        #expect(try await blobs.put(Photos.png) == digest)
        #expect(try await blobs.digests(storedBefore: anHourAgo).isEmpty)
        #expect(try await blobs.remove(sha256: digest, ifStoredBefore: anHourAgo) == false)
        #expect(try await blobs.get(sha256: digest) == Photos.png)
        #expect(try await blobs.remove(sha256: digest, ifStoredBefore: Date().addingTimeInterval(60)))
        #expect(try await blobs.get(sha256: digest) == nil)
    }
}

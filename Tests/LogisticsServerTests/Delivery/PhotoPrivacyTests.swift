import Foundation
import LogisticsCore
import Testing

@testable import TestSupport

/// A photo proof is stored and served without its camera's metadata.
@Suite("Photo privacy", .timeLimit(.minutes(2)))
struct PhotoPrivacyTests {
    @Test("a JPEG with EXIF GPS and the phone's model is served without them, and still as a JPEG")
    func exifRemoved() async throws {
        try await TestServer.run(.sqlite) { server in
            let scenario = try await DeliveryScenario.ready(server)
            let (_, rider, taskId) = try await scenario.assigned()
            try await scenario.arrive(taskId, rider: rider)
            let secret = Array("GPSLatitude 43.7347 Pixel 8 Pro".utf8)
            let exif = Array("Exif\u{0}\u{0}".utf8) + secret
            let segment = [0xFF, 0xE1, UInt8((exif.count + 2) >> 8), UInt8((exif.count + 2) & 0xFF)] + exif
            let photo = Array(Photos.jpeg[0..<2]) + segment + Array(Photos.jpeg[2...])
            let form = Photos.multipart(photo: photo, fields: Photos.fields(server))
            let stored = try await server.send(
                .post, "/api/v1/rider/tasks/\(taskId)/pod", token: rider, raw: form.body, contentType: form.contentType)
            #expect(stored.status == 201)
            let image = try await server.send(
                .get, "/api/v1/pods/\(try #require(stored["podId"] as? String))/image", token: scenario.dispatcher)
            #expect(image.status == 200)
            #expect(Array(image.body) == Photos.jpeg)
            #expect(stored["byteSize"] as? Int == Photos.jpeg.count)
        }
    }
}

import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// The document is JSON files, the root one and a fragment per feature folder (issue #23): these tests hold the
/// files, what the binary embeds and what it serves to each other.
@Suite("The OpenAPI document's files", .timeLimit(.minutes(3)))
struct OpenAPIDocumentTests {
    /// `Sources/LogisticsServer`, found from this file, so the test reads what a contributor edits.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/LogisticsServer")

    /// Every `openapi.json` below `sources`, by its path there (the names the plugin gives them).
    static func filesOnDisk() throws -> [String: Data] {
        let paths = (FileManager.default.enumerator(atPath: sources.path)?.allObjects ?? []).compactMap {
            $0 as? String
        }
        var files: [String: Data] = [:]
        for path in paths where path == "openapi.json" || path.hasSuffix("/openapi.json") {
            files[path] = try Data(contentsOf: sources.appendingPathComponent(path))
        }
        return files
    }

    static func canonical(_ object: Any) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    @Test("every openapi.json of the source tree is in the binary, byte for byte")
    func embedded() throws {
        let disk = try Self.filesOnDisk()
        #expect(disk[OpenAPIDocument.root] != nil)
        #expect(disk.count > 1, "no feature fragments found under \(Self.sources.path)")
        #expect(Set(EmbeddedOpenAPI.files.keys) == Set(disk.keys))
        for (path, data) in disk {
            #expect(EmbeddedOpenAPI.files[path] == data.base64EncodedString(), "\(path) changed since the build")
        }
    }

    @Test("the served document is the root file plus every fragment's paths and schemas")
    func servedIsTheMerge() async throws {
        let disk = try Self.filesOnDisk().mapValues { try OpenAPIDocument.parse($0) }
        var expected = try #require(disk[OpenAPIDocument.root])
        var components = expected["components"] as? [String: Any] ?? [:]
        var paths: [String: Any] = [:]
        var schemas: [String: Any] = [:]
        for file in disk.values {
            paths.merge(file["paths"] as? [String: Any] ?? [:]) { first, _ in first }
            let fileComponents = file["components"] as? [String: Any] ?? [:]
            schemas.merge(fileComponents["schemas"] as? [String: Any] ?? [:]) { first, _ in first }
        }
        components["schemas"] = schemas
        expected["components"] = components
        expected["paths"] = paths
        let canonical = try Self.canonical(expected)
        try await TestServer.run(.sqlite) { server in
            let reply = try await server.send(.get, "/openapi.json")
            #expect(reply.status == 200)
            #expect(reply.contentType == "application/json")
            #expect(try Self.canonical(try JSONSerialization.jsonObject(with: reply.body)) == canonical)
        }
    }

    @Test("the files merge, and a path or schema in two files, or a fragment holding more, is refused")
    func collisions() throws {
        #expect(throws: Never.self) { try OpenAPIDocument.served.get() }
        let root: [String: Any] = ["openapi": "3.1.0", "components": ["schemas": ["Problem": [:] as [String: Any]]]]
        let orders: [String: Any] = ["paths": ["/api/v1/orders": [:] as [String: Any]]]
        let problem: [String: Any] = ["components": ["schemas": ["Problem": [:] as [String: Any]]]]
        let info: [String: Any] = ["info": ["title": "mine"]]
        for (second, what) in [(orders, "path /api/v1/orders"), (problem, "schema Problem"), (info, "[\"info\"]")] {
            let error = #expect(throws: OpenAPIDocument.MergeError.self) {
                try OpenAPIDocument.merge([
                    OpenAPIDocument.root: root, "Orders/openapi.json": orders, "Zzz/openapi.json": second,
                ])
            }
            #expect(error?.description.contains(what) == true, "\(error?.description ?? "no error")")
        }
    }

    @Test("the enumerations the document states are the server's own")
    func enumerations() throws {
        let document = try OpenAPIDocument.parse(try OpenAPIDocument.served.get())
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func values(_ path: String) -> [String]? {
            var node: Any? = schemas
            for key in path.split(separator: "/") { node = (node as? [String: Any])?[String(key)] }
            return (node as? [String: Any])?["enum"] as? [String]
        }
        let expected: [(String, [String])] = [
            ("Problem/properties/code", ErrorCode.allCases.map(\.rawValue)),
            ("Order/properties/status", OrderStatus.allCases.map(\.rawValue)),
            ("Order/properties/podType", ProofOfDeliveryType.allCases.map(\.rawValue)),
            ("Rider/properties/availability", RiderAvailability.allCases.map(\.rawValue)),
            ("OrderEvent/properties/actor/properties/role", Role.allCases.map(\.rawValue)),
            ("Task/properties/status", TaskStatus.allCases.map(\.rawValue)),
            ("StatusChange/properties/reason", DeliveryIssueType.allCases.map(\.rawValue)),
            ("DeviceRequest/properties/platform", DevicePlatform.allCases.map(\.rawValue)),
            (
                "DeadLetterList/properties/deadLetters/items/properties/channel",
                NotificationChannel.allCases.map(\.rawValue)
            ),
            ("WebhookRequest/properties/events/items", ["*"] + OrderEventType.all),
        ]
        for (path, cases) in expected {
            #expect(values(path) == cases, "components/schemas/\(path)")
        }
    }
}

import Foundation

/// The OpenAPI 3.1 description of the REST API, served at `/openapi.json`. It lives in JSON files embedded by the
/// EmbedWebAssets plugin: `HTTP/OpenAPI/openapi.json` for what every feature shares (info, security, parameters,
/// common shapes) and one `openapi.json` per feature folder with that feature's paths and shapes. A test fails when
/// a served route is missing from them or a documented one is not served.
enum OpenAPIDocument {
    /// The root file's path in the target, as the plugin names it.
    static let root = "HTTP/OpenAPI/openapi.json"

    /// Merged once; `buildApplication` asks for it first, so files that do not merge stop the start, not a request.
    static let served: Result<Data, any Error> = Result {
        var files: [String: [String: Any]] = [:]
        for (path, base64) in EmbeddedOpenAPI.files {
            do {
                files[path] = try parse(Data(base64Encoded: base64) ?? Data())
            } catch {
                throw MergeError("\(path): \(error)")
            }
        }
        return try serialize(merge(files))
    }

    /// Sorted keys, so the served bytes change only when the document does, never with dictionary order.
    static func serialize(_ document: [String: Any]) throws -> Data {
        try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])
    }

    static func parse(_ data: Data) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw MergeError("not a JSON object")
        }
        return object
    }

    /// The root document with every file's `paths` and `components.schemas` added. Two files defining the same path
    /// or schema, or a fragment holding anything else, would silently lose part of the document: refused instead.
    static func merge(_ files: [String: [String: Any]]) throws -> [String: Any] {
        guard var document = files[root] else { throw MergeError("\(root) is missing") }
        var paths: [String: Any] = [:]
        var schemas: [String: Any] = [:]
        var owners: [String: String] = [:]
        for (file, fragment) in files.sorted(by: { $0.key < $1.key }) {
            let components = fragment["components"] as? [String: Any] ?? [:]
            if file != root {
                let extra = Set(fragment.keys).subtracting(["paths", "components"])
                    .union(Set(components.keys).subtracting(["schemas"]).map { "components.\($0)" })
                guard extra.isEmpty else { throw MergeError("\(file) holds \(extra.sorted()); only the root may") }
            }
            for (kind, entries) in [("path", fragment["paths"]), ("schema", components["schemas"])] {
                guard let entries = entries as? [String: Any] else { continue }
                for (name, value) in entries {
                    if let first = owners.updateValue(file, forKey: "\(kind) \(name)") {
                        throw MergeError("\(kind) \(name) is in both \(first) and \(file)")
                    }
                    if kind == "path" { paths[name] = value } else { schemas[name] = value }
                }
            }
        }
        var components = document["components"] as? [String: Any] ?? [:]
        components["schemas"] = schemas
        document["components"] = components
        document["paths"] = paths
        return document
    }

    struct MergeError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = "OpenAPI document: " + description }
    }
}

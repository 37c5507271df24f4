import Foundation
import HTTPTypes
import Hummingbird

/// One of the pages' files (scripts, styles, the manifest, icons), or a page the same for every visitor, served
/// gzipped with a validator.
struct WebAsset: Sendable {
    /// The file's path below the top-level `Web/` (`Rider/rider.js`), or a page's name.
    let name: String
    let contentType: String
    let body: CompressedBody
    let headers: HTTPFields

    init(
        name: String, contentType: String, data: Data, cacheControl: String = "public, max-age=300",
        tileServer: RasterTileServer? = nil
    ) {
        self.name = name
        self.contentType = contentType
        body = CompressedBody(data)
        var response = APIResponse(status: .ok, body: Data(), contentType: contentType)
        WebPage.secure(&response, tileServer: tileServer)
        response.extraHeaders[.cacheControl] = cacheControl
        headers = response.extraHeaders
    }

    func response(for request: Request) -> APIResponse {
        body.response(for: request, contentType: contentType, headers: headers)
    }

    var text: String { String(decoding: body.plain, as: UTF8.self) }
}

/// The files of the top-level `Web/` folder, compiled into the binary by the EmbedWebAssets build plugin: edit them
/// as files (no build step beyond `swift build`), deploy nothing beside the binary. Each is known by its path below
/// `Web/` (`Rider/rider.js`, `Shared/map.js`) and served at `/web/` and that path, so a folder is part of a file's name.
enum WebAssets {
    static let files: [String: WebAsset] = assets(embedded: EmbeddedWebAssets.files)

    /// The assets of embedded files (path to base64 bytes), keyed by path.
    static func assets(embedded: [String: String]) -> [String: WebAsset] {
        var files: [String: WebAsset] = [:]
        for (path, base64) in embedded {
            guard let data = Data(base64Encoded: base64) else { preconditionFailure("\(path) was embedded garbled") }
            files[path] = WebAsset(name: path, contentType: contentType(of: path), data: data)
        }
        return files
    }

    /// The assets served under `/web/`. HTML files are templates the pages fill in and JSON files the words the
    /// server fills into them (`RiderAppText`): neither is served as it is.
    static func served(_ files: [String: WebAsset]) -> [WebAsset] {
        files.values.filter { !$0.name.hasSuffix(".html") && !$0.name.hasSuffix(".json") }.sorted { $0.name < $1.name }
    }

    static subscript(path: String) -> WebAsset {
        guard let asset = files[path] else { preconditionFailure("no web asset \(path) in Web/") }
        return asset
    }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last.map(String.init) ?? "" {
        case "js": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "html": "text/html; charset=utf-8"
        case "json": "application/json"
        case "webmanifest": "application/manifest+json"
        case "png": "image/png"
        case "svg": "image/svg+xml"
        default: "application/octet-stream"
        }
    }

    static func register(on router: Router<LogisticsRequestContext>, files: [String: WebAsset] = files) {
        for asset in served(files) {
            router.get(RouterPath("/web/\(asset.name)")) { request, _ in asset.response(for: request) }
        }
    }
}

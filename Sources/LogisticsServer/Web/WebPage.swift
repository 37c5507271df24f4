import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore

/// Responses of the pages people open in a browser: HTML (never a problem document), with headers that keep
/// scripts to our own files and tracking tokens out of referrers.
enum WebPage {
    /// Only our own origin: no inline scripts, no third-party hosts (the map tiles come from this server too), except
    /// the images of an operator's raster tile server when one is configured.
    static func contentSecurityPolicy(tileServer: RasterTileServer? = nil) -> String {
        let images = ["'self'", "data:"] + (tileServer.map { [$0.origin] } ?? [])
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src \(images.joined(separator: " ")); "
            + "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    static func html(
        _ body: String, status: HTTPResponse.Status = .ok, tileServer: RasterTileServer? = nil
    ) -> APIResponse {
        var response = APIResponse(status: status, body: Data(body.utf8), contentType: "text/html; charset=utf-8")
        secure(&response, tileServer: tileServer)
        // A page with a token in its address is nobody's to cache.
        response.extraHeaders[.cacheControl] = "no-store"
        return response
    }

    static func secure(_ response: inout APIResponse, tileServer: RasterTileServer? = nil) {
        response.extraHeaders[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy(
            tileServer: tileServer)
        response.extraHeaders[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.extraHeaders[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    }

    /// A strong ETag from the content, for pages' assets and map tiles.
    static func etag(_ body: Data) -> String {
        "\"" + SHA256.hash(data: body).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// The `data-tile-url` attribute the map script reads, when an operator named a raster tile server.
    static func tileAttribute(_ tileServer: RasterTileServer?) -> String {
        tileServer.map { " data-tile-url=\"\(escape($0.template))\"" } ?? ""
    }

    /// Text for HTML: `&`, `<`, `>`, quotes escaped.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// The first language of `Accept-Language` the catalog has, else English.
    static func language(_ header: String?) -> String {
        let available = Set(PageText.languages)
        for part in (header ?? "").split(separator: ",") {
            let tag = part.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
            let language = NotificationCatalog.languageCode(tag)
            if available.contains(language) { return language }
        }
        return "en"
    }
}

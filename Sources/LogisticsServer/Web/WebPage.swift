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
        // blob: for the rider's proof photo, shown and shrunk in the page before upload.
        let images = ["'self'", "data:", "blob:"] + (tileServer.map { [$0.origin] } ?? [])
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

    /// A page the same for every visitor, made once and kept gzipped beside the plain bytes.
    static func fixed(_ name: String, html: String, tileServer: RasterTileServer?) -> WebAsset {
        // A page with a token in its address is nobody's to cache.
        WebAsset(
            name: name, contentType: "text/html; charset=utf-8", data: Data(html.utf8), cacheControl: "no-store",
            tileServer: tileServer)
    }

    static func secure(_ response: inout APIResponse, tileServer: RasterTileServer? = nil) {
        response.extraHeaders[HTTPField.Name("Content-Security-Policy")!] = contentSecurityPolicy(
            tileServer: tileServer)
        response.extraHeaders[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        response.extraHeaders[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
    }

    /// A page from its template in the assets, each `{{name}}` replaced by its value (already escaped for where
    /// it stands), in one pass: a value that itself holds `{{…}}` (a rider's name, say) is never filled in.
    static func render(_ template: String, _ values: [String: String]) -> String {
        var rest = WebAssets[template].text[...]
        var page = ""
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            page += rest[..<open.lowerBound]
            let name = String(rest[open.upperBound..<close.lowerBound])
            guard let value = values[name] else {
                preconditionFailure("\(template) has {{\(name)}} and no value for it")
            }
            page += value
            rest = rest[close.upperBound...]
        }
        return page + rest
    }

    /// A strong ETag from the content, for pages' assets and map tiles.
    static func etag(_ body: Data) -> String {
        "\"" + SHA256.hash(data: body).prefix(12).map { String(format: "%02x", $0) }.joined() + "\""
    }

    /// The `data-tile-url` attribute the map script reads, when an operator named a raster tile server.
    static func tileAttribute(_ tileServer: RasterTileServer?) -> String {
        tileServer.map { " data-tile-url=\"\(escape($0.template))\"" } ?? ""
    }

    /// Text for HTML: `&`, `<`, `>`, quotes escaped. Over UTF-8 bytes, not characters: every server builds its
    /// pages with their texts escaped, and walking grapheme clusters made that the bulk of a test server's start.
    static func escape(_ text: String) -> String {
        var escaped: [UInt8] = []
        escaped.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
            default: escaped.append(byte)
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    /// The first language of `Accept-Language` the page has words in, else English.
    static func language(_ header: String?, among languages: [String] = PageText.languages) -> String {
        let available = Set(languages)
        for part in (header ?? "").split(separator: ",") {
            let tag = part.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? ""
            let language = NotificationCatalog.languageCode(tag)
            if available.contains(language) { return language }
        }
        return "en"
    }
}

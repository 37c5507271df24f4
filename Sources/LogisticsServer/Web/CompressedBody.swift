import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A text body (the pages' scripts and styles, map tiles) kept gzipped beside the plain bytes, made once: a phone on
/// a slow network fetches far fewer bytes. Sent gzipped only to clients that say they accept it.
struct CompressedBody: Sendable {
    let plain: Data
    let gzipped: Data?
    /// Strong validators, one per representation (RFC 9110 §8.8.3): the gzipped one has a suffix.
    let etag: String
    var gzippedETag: String { String(etag.dropLast()) + "-gz\"" }

    init(_ plain: Data) {
        self.plain = plain
        etag = WebPage.etag(plain)
        var buffer = ByteBuffer(bytes: plain)
        let compressed = (try? buffer.compress(with: .gzip())).map { Data($0.readableBytesView) }
        gzipped = compressed.flatMap { $0.count < plain.count ? $0 : nil }
    }

    /// Whether `Accept-Encoding` names gzip (or `*`) with a quality above zero.
    static func acceptsGzip(_ header: String?) -> Bool {
        for part in (header ?? "").lowercased().split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let coding = fields.first, coding == "gzip" || coding == "*" else { continue }
            let quality = fields.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if quality > 0 { return true }
        }
        return false
    }

    /// The response for this request: 304 when the client holds either representation, else the body gzipped
    /// when accepted.
    func response(
        for request: Request, contentType: String, headers: HTTPFields = [:]
    ) -> APIResponse {
        let gzip = gzipped != nil && Self.acceptsGzip(request.headers[.acceptEncoding])
        let tag = gzip ? gzippedETag : etag
        var response: APIResponse
        if let held = request.headers[.ifNoneMatch], held == etag || held == gzippedETag {
            response = APIResponse(status: .notModified, body: Data(), contentType: contentType)
        } else {
            response = APIResponse(status: .ok, body: gzip ? gzipped! : plain, contentType: contentType)
            if gzip { response.extraHeaders[.contentEncoding] = "gzip" }
        }
        response.extraHeaders.append(contentsOf: headers)
        response.extraHeaders[.eTag] = tag
        response.extraHeaders[.vary] = "Accept-Encoding"
        return response
    }
}

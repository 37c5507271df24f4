import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import NIOCore

/// A fully encoded response. Handlers return this rather than a streamed body so idempotency records
/// can store exactly what the client received.
public struct APIResponse: ResponseGenerator, Sendable {
    public var status: HTTPResponse.Status
    public var body: Data
    public var contentType: String
    public var location: String?
    public var extraHeaders: HTTPFields = [:]

    public init(status: HTTPResponse.Status, body: Data, contentType: String, location: String? = nil) {
        self.status = status
        self.body = body
        self.contentType = contentType
        self.location = location
    }

    public static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok, location: String? = nil)
        throws -> APIResponse
    {
        APIResponse(
            status: status, body: try APIJSON.encoder.encode(value), contentType: "application/json",
            location: location)
    }

    /// A route, written by `Route.apiJSON` rather than `JSONEncoder` (the same bytes, several times faster).
    static func json(_ route: Route) -> APIResponse {
        APIResponse(status: .ok, body: Data(route.apiJSON), contentType: "application/json")
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = extraHeaders
        headers[.contentType] = contentType
        if let location { headers[.location] = location }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

/// The API's JSON conventions: camelCase keys and RFC 3339 UTC times with milliseconds.
public enum APIJSON {
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = RFC3339.jsonEncoding
        return encoder
    }

    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.jsonDecoding
        return decoder
    }
}

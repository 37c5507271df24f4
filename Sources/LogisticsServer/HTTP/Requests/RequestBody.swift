import Foundation
import HTTPTypes
import Hummingbird
import LogisticsCore
import NIOCore

/// Reads and decodes JSON bodies with the API's limits and error shapes.
public enum RequestBody {
    public static let jsonLimit = 64 * 1024

    /// Collects the body, refusing with 413 past `limit` bytes without buffering more than that.
    public static func collect(_ request: inout Request, limit: Int = jsonLimit) async throws -> ByteBuffer {
        if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
            throw tooLarge(limit)
        }
        do {
            return try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw tooLarge(limit)
        }
    }

    /// `read` may take the body first, for a hot request whose plain shape is read off the bytes; when it answers
    /// nil, `JSONDecoder` decodes it (and words any error).
    public static func decode<T: Decodable>(
        _ type: T.Type, from request: Request, limit: Int = jsonLimit,
        reading read: (UnsafeRawBufferPointer) -> T? = { _ in nil }
    ) async throws -> T {
        var request = request
        guard isJSON(request.headers[.contentType]) else {
            throw LogisticsError(.unsupportedMediaType, "Send the body as application/json")
        }
        let buffer = try await collect(&request, limit: limit)
        if let value = buffer.withUnsafeReadableBytes(read) { return value }
        return try decodeJSON(type, from: Data(buffer: buffer))
    }

    public static func decodeJSON<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        guard !data.isEmpty else { throw LogisticsError.validation(field: "body", "a JSON body is required") }
        let data = NulCharacters.replaced(in: data)
        do {
            return try APIJSON.decoder.decode(type, from: data)
        } catch let error as DecodingError {
            if case .dataCorrupted(let context) = error, context.codingPath.isEmpty,
                let field = FractionalNumberProbe.field(type, in: data)
            {
                throw LogisticsError.validation([field])
            }
            throw LogisticsError.validation([fieldError(from: error)])
        } catch let error as LogisticsError {
            throw error
        } catch {
            throw LogisticsError.validation(field: "body", "is not valid JSON")
        }
    }

    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return mediaType == "application/json" || (mediaType.hasPrefix("application/") && mediaType.hasSuffix("+json"))
    }

    static func tooLarge(_ limit: Int) -> LogisticsError {
        LogisticsError(.payloadTooLarge, "The body is larger than \(limit) bytes", extras: ["limitBytes": .int(limit)])
    }

    static func fieldError(from error: DecodingError) -> FieldError {
        func path(_ codingPath: [any CodingKey], _ last: (any CodingKey)? = nil) -> String {
            let keys = codingPath + (last.map { [$0] } ?? [])
            let joined = keys.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            let trimmed = joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
            return trimmed.isEmpty ? "body" : trimmed
        }
        switch error {
        case .typeMismatch(let type, let context):
            return FieldError(field: path(context.codingPath), message: "must be \(describe(type))")
        case .valueNotFound(_, let context):
            return FieldError(field: path(context.codingPath), message: "is required")
        case .keyNotFound(let key, let context):
            return FieldError(field: path(context.codingPath, key), message: "is required")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return FieldError(field: "body", message: "is not valid JSON") }
            return FieldError(field: path(context.codingPath), message: context.debugDescription)
        @unknown default:
            return FieldError(field: "body", message: "is not valid")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Double.Type, is Float.Type: "a number"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        case is [Any].Type: "an array"
        default: "an object of the documented shape"
        }
    }
}

/// One invalid field in a request, reported back to the client.
public struct FieldError: Codable, Sendable, Equatable {
    public var field: String
    public var message: String

    public init(field: String, message: String) {
        self.field = field
        self.message = message
    }
}

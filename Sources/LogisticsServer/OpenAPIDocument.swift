import Foundation

enum OpenAPIDocument {
    static let json = Data("{}".utf8)
}

import Foundation
import LogisticsCore

/// Names the field behind a fractional number sent where a whole one belongs. Foundation's decoder on Linux reports
/// 2.5 for an `Int` as "not valid JSON" with no coding path, so the caller would hear "body: is not valid JSON" for
/// a body that is valid JSON. When the body parses, this decodes the type once more from the parsed tree with a
/// decoder of its own, which asks for the same keys in the same order and stops at the first whole number that is
/// not whole, with its path. One pass, on the error path only: it used to bisect over the body's fractional
/// numbers, copying the tree for each, and a 64 KiB body full of them cost seconds of CPU.
enum FractionalNumberProbe {
    static func field<T: Decodable>(_ type: T.Type, in data: Data) -> FieldError? {
        guard let tree = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) else { return nil }
        do {
            _ = try T(from: TreeDecoder(value: tree, codingPath: []))
        } catch let found as Fractional {
            return FieldError(field: name(found.path), message: "must be a whole number")
        } catch {}
        return nil
    }

    /// The first fractional number asked for as a whole one, where it is.
    struct Fractional: Error {
        var path: [any CodingKey]
    }

    private static func name(_ path: [any CodingKey]) -> String {
        let joined = path.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
        return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
    }
}

/// Decodes from `JSONSerialization`'s tree, leniently: whatever is not the fault looked for (a fractional number
/// asked for as an integer) decodes to a placeholder, since the real decoder already got past it.
private struct TreeDecoder: Decoder {
    let value: Any
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(TreeKeyed<Key>(object: value as? [String: Any] ?? [:], codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        TreeUnkeyed(array: value as? [Any] ?? [], codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        TreeSingle(value: value, codingPath: codingPath)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // Types whose own decoding reads a string in a form (dates, URLs) are not where whole numbers hide.
        if type == Date.self { return Date(timeIntervalSince1970: 0) as! T }
        if type == URL.self { return URL(fileURLWithPath: "/") as! T }
        if type == Data.self { return Data() as! T }
        return try T(from: self)
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        guard let number = value as? NSNumber, !(value is Bool) else { return 0 }
        let double = number.doubleValue
        guard double.rounded() == double else { throw FractionalNumberProbe.Fractional(path: codingPath) }
        return T(exactly: double) ?? 0
    }
}

private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue!)" }
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct TreeSingle: SingleValueDecodingContainer {
    let value: Any
    let codingPath: [any CodingKey]
    private var decoder: TreeDecoder { TreeDecoder(value: value, codingPath: codingPath) }

    init(value: Any, codingPath: [any CodingKey]) {
        self.value = value
        self.codingPath = codingPath
    }

    func decodeNil() -> Bool { value is NSNull }
    func decode(_ type: Bool.Type) throws -> Bool { value as? Bool ?? false }
    func decode(_ type: String.Type) throws -> String { value as? String ?? "" }
    func decode(_ type: Double.Type) throws -> Double { (value as? NSNumber)?.doubleValue ?? 0 }
    func decode(_ type: Float.Type) throws -> Float { (value as? NSNumber)?.floatValue ?? 0 }
    func decode(_ type: Int.Type) throws -> Int { try decoder.integer(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.integer(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.integer(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.integer(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.integer(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.integer(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.integer(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.integer(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.integer(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.integer(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(type) }
}

private struct TreeKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let object: [String: Any]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { object.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { object[key.stringValue] != nil }

    private func child(_ key: Key) -> TreeSingle {
        TreeSingle(value: object[key.stringValue] ?? NSNull(), codingPath: codingPath + [key])
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        object[key.stringValue] == nil || object[key.stringValue] is NSNull
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decode(type) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decode(type) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decode(type) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try child(key).decode(type) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decode(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decode(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decode(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decode(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decode(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decode(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decode(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decode(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decode(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decode(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decode(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try TreeDecoder(value: object[key.stringValue] ?? [:], codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        TreeUnkeyed(array: object[key.stringValue] as? [Any] ?? [], codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder { TreeDecoder(value: object, codingPath: codingPath) }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: object[key.stringValue] ?? NSNull(), codingPath: codingPath + [key])
    }
}

private struct TreeUnkeyed: UnkeyedDecodingContainer {
    let array: [Any]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(array: [Any], codingPath: [any CodingKey]) {
        self.array = array
        self.codingPath = codingPath
    }

    var count: Int? { array.count }
    var isAtEnd: Bool { currentIndex >= array.count }

    private mutating func next() -> TreeSingle {
        defer { currentIndex += 1 }
        let value = currentIndex < array.count ? array[currentIndex] : NSNull()
        return TreeSingle(value: value, codingPath: codingPath + [IndexKey(intValue: currentIndex)])
    }

    mutating func decodeNil() throws -> Bool {
        guard currentIndex < array.count, array[currentIndex] is NSNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next().decode(type) }
    mutating func decode(_ type: String.Type) throws -> String { try next().decode(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try next().decode(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try next().decode(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next().decode(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next().decode(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next().decode(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next().decode(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next().decode(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next().decode(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next().decode(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next().decode(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next().decode(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next().decode(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next().decode(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let child = next()
        return try TreeDecoder(value: child.value, codingPath: child.codingPath).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let child = next()
        return TreeUnkeyed(array: child.value as? [Any] ?? [], codingPath: child.codingPath)
    }

    mutating func superDecoder() throws -> any Decoder {
        let child = next()
        return TreeDecoder(value: child.value, codingPath: child.codingPath)
    }
}

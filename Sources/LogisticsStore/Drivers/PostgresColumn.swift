import NIOCore
import PostgresNIO

/// `SQLColumn` in PostgreSQL's binary array format (what `array_recv` reads): one dimension, NULLs allowed.
/// The text literals it replaces cost the server a decimal spelling of every number and PostgreSQL an `array_in`
/// parse of it, for each of the ten values of every stored fix.
struct PostgresColumn: PostgresDynamicTypeEncodable {
    let column: SQLColumn

    var psqlType: PostgresDataType { Self.arrayType(column.kind) }
    var psqlFormat: PostgresFormat { .binary }

    static func arrayType(_ kind: SQLColumn.Kind) -> PostgresDataType {
        switch kind {
        case .text: .textArray
        case .bigint: .int8Array
        case .float8: .float8Array
        }
    }

    func encode<JSONEncoder: PostgresJSONEncoder>(
        into buffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>
    ) {
        let values = column.values
        buffer.writeInteger(Int32(values.isEmpty ? 0 : 1))
        buffer.writeInteger(Int32(values.contains(.null) ? 1 : 0))
        buffer.writeInteger(Self.elementType(column.kind).rawValue)
        guard !values.isEmpty else { return }
        buffer.writeInteger(Int32(values.count))
        buffer.writeInteger(Int32(1))
        for value in values {
            switch (column.kind, value) {
            case (_, .null):
                buffer.writeInteger(Int32(-1))
            case (.text, .text(let text)):
                buffer.writeInteger(Int32(text.utf8.count))
                buffer.writeString(text)
            case (.bigint, .int(let int)):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(int)
            case (.float8, .double(let double)):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(double.bitPattern)
            case (.float8, .int(let int)):
                buffer.writeInteger(Int32(8))
                buffer.writeInteger(Double(int).bitPattern)
            default:
                preconditionFailure("a \(column.kind.rawValue) column holds \(value)")
            }
        }
    }

    private static func elementType(_ kind: SQLColumn.Kind) -> PostgresDataType {
        switch kind {
        case .text: .text
        case .bigint: .int8
        case .float8: .float8
        }
    }
}

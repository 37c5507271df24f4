import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One JSON object per line on standard error, for log collectors (Loki, CloudWatch, Elasticsearch) that would
/// otherwise have to parse free text. Metadata keys become top-level fields; a key that would shadow one of the
/// fixed fields keeps its value under `metadata.<key>`.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    public var logLevel: Logger.Level = .info
    private let label: String
    private let write: @Sendable ([UInt8]) -> Void

    public init(label: String, metadataProvider: Logger.MetadataProvider? = nil) {
        self.init(label: label, metadataProvider: metadataProvider, write: Self.standardError)
    }

    init(label: String, metadataProvider: Logger.MetadataProvider? = nil, write: @escaping @Sendable ([UInt8]) -> Void)
    {
        self.label = label
        self.metadataProvider = metadataProvider
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { _, new in new } }
        if let explicit = event.metadata { merged.merge(explicit) { _, new in new } }
        write(
            Self.line(
                time: Date(), level: event.level, label: label, message: event.message.description,
                metadata: merged, source: event.source, file: event.file, line: event.line))
    }

    static let fixedFields: Set<String> = ["time", "level", "logger", "message", "source", "location"]

    /// The encoded line, newline included. Keys are written in a fixed order, metadata sorted, so lines diff well.
    static func line(
        time: Date, level: Logger.Level, label: String, message: String, metadata: Logger.Metadata,
        source: String, file: String, line: UInt
    ) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(160 + message.utf8.count)
        out.append(UInt8(ascii: "{"))
        field("time", &out, first: true) { string(timestamp(time), into: &$0) }
        field("level", &out) { string(level.rawValue, into: &$0) }
        field("logger", &out) { string(label, into: &$0) }
        field("message", &out) { string(message, into: &$0) }
        field("source", &out) { string(source, into: &$0) }
        if level >= .warning {
            let fileName = file.split(separator: "/").last.map(String.init) ?? file
            field("location", &out) { string("\(fileName):\(line)", into: &$0) }
        }
        for key in metadata.keys.sorted() {
            let name = fixedFields.contains(key) ? "metadata.\(key)" : key
            field(name, &out) { value(metadata[key]!, into: &$0) }
        }
        out.append(contentsOf: Array("}\n".utf8))
        return out
    }

    private static func field(
        _ name: String, _ out: inout [UInt8], first: Bool = false, _ body: (inout [UInt8]) -> Void
    ) {
        if !first { out.append(UInt8(ascii: ",")) }
        string(name, into: &out)
        out.append(UInt8(ascii: ":"))
        body(&out)
    }

    private static func value(_ value: Logger.Metadata.Value, into out: inout [UInt8]) {
        switch value {
        case .string(let text): string(text, into: &out)
        case .stringConvertible(let convertible): string(convertible.description, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.value(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .dictionary(let entries):
            out.append(UInt8(ascii: "{"))
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                string(key, into: &out)
                out.append(UInt8(ascii: ":"))
                Self.value(entries[key]!, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func string(_ text: String, into out: inout [UInt8]) { JSONOutput.append(text, to: &out) }

    /// UTC with milliseconds, e.g. `2026-11-24T06:12:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        let millis = Int((date.timeIntervalSince1970 - Double(seconds)) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }

    /// Whole lines under one lock: `write(2)` on a pipe is only atomic up to 4 KiB, and a stack of metadata can be
    /// longer, so concurrent tasks would otherwise interleave their lines.
    private static let gate = Mutex(())
    private static let standardError: @Sendable ([UInt8]) -> Void = { line in
        gate.withLock { _ in
            line.withUnsafeBytes { bytes in
                var offset = 0
                while offset < bytes.count {
                    let written = Glibc.write(2, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 && errno == EINTR { continue }
                    if written <= 0 { return }  // stderr closed: nothing sensible to do with a log line
                    offset += written
                }
            }
        }
    }
}

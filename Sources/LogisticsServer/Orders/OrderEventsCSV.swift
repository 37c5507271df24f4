import Foundation
import LogisticsCore

/// An order's event log as CSV (RFC 4180), for a dispatcher to open in a spreadsheet or attach to a complaint.
enum OrderEventsCSV {
    static let header = [
        "seq", "eventId", "type", "status", "occurredAt", "receivedAt", "actorRole", "actorId", "taskId", "lat",
        "lon", "geofenceDistanceM", "geofenceOverride", "details",
    ]

    static func render(_ events: [OrderEvent]) -> String {
        var lines = [header.joined(separator: ",")]
        for event in events {
            let details = event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            let fields: [String] = [
                String(event.seq), event.id.lowercased, event.type, event.status ?? "",
                RFC3339.string(from: event.occurredAt), RFC3339.string(from: event.receivedAt),
                event.actorRole.rawValue, event.actorId.lowercased, event.taskId?.lowercased ?? "",
                event.location.map { String($0.lat) } ?? "", event.location.map { String($0.lon) } ?? "",
                event.geofenceDistanceM.map { String(Int($0.rounded())) } ?? "",
                event.geofenceOverride ? "true" : "false", details.joined(separator: "; "),
            ]
            lines.append(fields.map(cell).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// Quotes what needs quoting, and defuses text a spreadsheet would run as a formula: details carry words a
    /// rider or vendor typed (a reason, a note), and `=HYPERLINK(…)` in a cell is an attack on whoever opens it.
    /// Numbers stay numbers: a western longitude starts with a minus too.
    static func cell(_ value: String) -> String {
        var text = value
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first), Double(text) == nil {
            text = "'" + text
        }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

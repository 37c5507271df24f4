import Foundation
import LogisticsCore
import LogisticsServer
import ServiceLifecycle

/// One console line per delivery event a person watching the demo cares about (assigned, picked up, delivered,
/// a problem, cancelled), from the event log, with the order's reference and the rider's name.
struct DemoEventsService: Service {
    let services: ServerComponents
    static let every: Duration = .seconds(2)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var since = services.clock.now()
            var shown: Set<UUID> = []
            var names: [UUID: String] = [:]
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.every)
                // A little overlap: events committed out of order by a second or two are not missed, nor shown twice.
                guard
                    let events = try? await services.repository.recentEvents(
                        since: since.addingTimeInterval(-5), limit: 500)
                else { continue }
                for (event, reference) in events where shown.insert(event.id).inserted {
                    since = max(since, event.receivedAt)
                    guard let words = Self.words(event) else { continue }
                    var who = ""
                    if event.actorRole == .rider {
                        if names[event.actorId] == nil {
                            names[event.actorId] = (try? await services.repository.rider(id: event.actorId))??.name
                        }
                        who = names[event.actorId].map { " (\($0))" } ?? ""
                    }
                    let order = reference ?? String(event.orderId.lowercased.prefix(8))
                    Console.line("  \(Self.clock(event.occurredAt))  \(order)  \(words)\(who)")
                }
                if shown.count > 5_000 { shown.removeAll() }
            }
        }
    }

    /// What happened, in a few words; nil for the events that are bookkeeping (offers made, proofs, the creation
    /// of the simulation's orders).
    static func words(_ event: OrderEvent) -> String? {
        switch event.type {
        case OrderEventType.orderAssigned: return "accepted"
        case OrderEventType.orderCancelled: return "cancelled"
        case OrderEventType.deliveryIssueReported:
            return
                "problem reported: \(event.details["issueType"]?.lowercased().replacingOccurrences(of: "_", with: " ") ?? "")"
        case OrderEventType.dispatchEscalated: return "nobody free took it: a dispatcher is needed"
        case OrderEventType.orderReassigned: return "given to another rider"
        case OrderEventType.returnToStoreRequested: return "sent back to the store"
        case OrderEventType.deliveryStatusUpdated:
            switch event.status.flatMap(TaskStatus.init(rawValue:)) {
            case .pickedUp: return "picked up"
            case .arrivedAtDestination: return "at the customer's door"
            case .delivered: return "delivered"
            case .failed:
                return "failed: \(event.details["reason"]?.lowercased().replacingOccurrences(of: "_", with: " ") ?? "")"
            case .returnedToStore: return "back at the store"
            default: return nil
            }
        default: return nil
        }
    }

    static func clock(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }
}

import Foundation
import LogisticsCore

/// What went wrong: the server refused (a problem document), or the network failed.
public enum RiderAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    case problem(RiderProblem)
    /// No connection, a timeout, an unreadable answer: worth retrying.
    case transport(String)

    /// A refusal that sending again will not change (the queue stops and shows it). Throttling, server trouble,
    /// an expired token (refreshed on the next try) and lost connections are retried instead.
    public var isPermanent: Bool {
        guard case .problem(let problem) = self, problem.code != "IDEMPOTENCY_REQUEST_IN_PROGRESS" else { return false }
        return (400..<500).contains(problem.status) && ![401, 408, 429].contains(problem.status)
    }

    public var description: String {
        switch self {
        case .problem(let problem): "\(problem.status) \(problem.summary)"
        case .transport(let detail): "no connection (\(detail))"
        }
    }
}

/// The server's `application/problem+json` document.
public struct RiderProblem: Error, Codable, Sendable, Equatable {
    /// One refused field of a 400 VALIDATION_FAILED.
    public struct FieldProblem: Codable, Sendable, Equatable {
        public var field: String
        public var message: String
    }

    public var status: Int
    public var code: String
    public var title: String
    public var detail: String?
    public var errors: [FieldProblem]?

    public init(status: Int, code: String, title: String, detail: String? = nil, errors: [FieldProblem]? = nil) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.errors = errors
    }

    /// `VALIDATION_FAILED: fixes[0].lat must be …` — for logs and error screens.
    public var summary: String {
        let fields = (errors ?? []).map { "\($0.field) \($0.message)" }.joined(separator: "; ")
        return "\(code): " + (fields.isEmpty ? (detail ?? title) : fields)
    }
}

public struct RiderProfile: Decodable, Sendable, Equatable {
    public var riderId: String
    public var availability: String
    public var activeTaskId: String?
}

public struct RiderOffer: Decodable, Sendable, Equatable {
    public var offerId: String
    public var orderId: String
    public var expiresAt: Date
    public var secondsLeft: Int?
    /// Set when automatic dispatch sent the rider ahead while the store prepares the order.
    public var expectedReadyAt: Date?
    /// Set when the offer adds the order to the rider's current trip (batching).
    public var trip: TripPlacement?

    public struct TripPlacement: Decodable, Sendable, Equatable {
        public var stopCount: Int
        public var pickupSequence: Int
        public var dropoffSequence: Int
    }
}

/// The rider's task as `GET /rider/tasks/active` and every status change return it.
public struct RiderTask: Decodable, Sendable, Equatable {
    public struct Customer: Decodable, Sendable, Equatable {
        public var name: String
        public var address: String
        public var location: GeoPoint
    }
    public struct Stop: Decodable, Sendable, Equatable {
        public var kind: StopKind
        public var name: String
        public var location: GeoPoint
    }
    /// One stop of the rider's trip, in sequence; with batching the stops of several orders, each moved by its
    /// own task's status.
    public struct TripStop: Decodable, Sendable, Equatable {
        public var sequence: Int
        public var kind: StopKind
        public var taskId: String
        public var orderId: String
        public var name: String
        public var address: String
        public var location: GeoPoint
        public var status: TaskStatus
        public var done: Bool
        public var current: Bool
    }
    public var taskId: String
    public var orderId: String
    public var status: TaskStatus
    public var allowedNext: [TaskStatus]
    public var podType: ProofOfDeliveryType
    public var vendor: VendorStop
    /// nil once the task has ended: the server gives the rider no customer contact after the delivery.
    public var customer: Customer?
    public var nextStop: Stop?
    public var route: Route?
    /// The server's geofence radius for the arrival question; servers before it was sent used the default.
    public var geofenceRadiusM: Double
    /// The trip's stops in order (empty from servers before batching, and once the task has ended).
    public var stops: [TripStop]

    /// More than one order on the trip: the rider's next action may belong to another task than this one.
    public var isBatched: Bool { Set(stops.map(\.taskId)).count > 1 }

    private enum CodingKeys: String, CodingKey {
        case taskId, orderId, status, allowedNext, podType, vendor, customer, nextStop, route, geofenceRadiusM, stops
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        taskId = try container.decode(String.self, forKey: .taskId)
        orderId = try container.decode(String.self, forKey: .orderId)
        status = try container.decode(TaskStatus.self, forKey: .status)
        allowedNext = try container.decode([TaskStatus].self, forKey: .allowedNext)
        podType = try container.decode(ProofOfDeliveryType.self, forKey: .podType)
        vendor = try container.decode(VendorStop.self, forKey: .vendor)
        customer = try container.decodeIfPresent(Customer.self, forKey: .customer)
        nextStop = try container.decodeIfPresent(Stop.self, forKey: .nextStop)
        route = try container.decodeIfPresent(Route.self, forKey: .route)
        geofenceRadiusM =
            try container.decodeIfPresent(Double.self, forKey: .geofenceRadiusM) ?? RiderAppRules.defaultGeofenceRadiusM
        stops = try container.decodeIfPresent([TripStop].self, forKey: .stops) ?? []
    }
}

public struct LocationReceipt: Decodable, Sendable, Equatable {
    public var accepted: Int
    public var rejected: Int
}

/// A status change as the server receives it.
public struct StatusUpdate: Codable, Sendable, Equatable {
    public var status: TaskStatus
    public var location: GeoPoint?
    /// Why there is no location; the server refuses a change with neither.
    public var noLocationReason: NoLocationReason?
    public var occurredAt: Date
    public var eventId: UUID
    public var farFromDestinationConfirmed: Bool
    public var reason: String?

    public init(
        status: TaskStatus, location: GeoPoint?, noLocationReason: NoLocationReason? = nil, occurredAt: Date,
        eventId: UUID, farFromDestinationConfirmed: Bool = false, reason: String? = nil
    ) {
        self.status = status
        self.location = location
        self.noLocationReason = noLocationReason
        self.occurredAt = occurredAt
        self.eventId = eventId
        self.farFromDestinationConfirmed = farFromDestinationConfirmed
        self.reason = reason
    }
}

/// The API's JSON: RFC 3339 times with milliseconds, lowercase ids.
enum RiderJSON {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = RFC3339.jsonEncoding
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RFC3339.jsonDecoding
        return decoder
    }
}

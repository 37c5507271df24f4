/// A vehicle routing problem in VROOM's terms, on a travel-time matrix: riders (vehicles) with a start, an end, a
/// capacity and a shift; single-stop jobs and pickup-and-delivery shipments with service times, time windows and
/// amounts. Locations are matrix indices; times are whole seconds.
public struct PlanProblem: Sendable {
    public struct Vehicle: Sendable {
        public var id: UInt64
        public var start: Int?
        public var end: Int?
        public var capacity: [Int]
        public var shift: ClosedRange<Int>
        public var skills: Set<Int>

        public init(
            id: UInt64, start: Int?, end: Int?, capacity: [Int], shift: ClosedRange<Int> = 0...Self.endOfTime,
            skills: Set<Int> = []
        ) {
            self.id = id
            self.start = start
            self.end = end
            self.capacity = capacity
            self.shift = shift
            self.skills = skills
        }

        /// A shift with no end: far enough to never bind, small enough that sums never overflow.
        public static let endOfTime = 1 << 40
    }

    public enum StopKind: String, Sendable {
        case job, pickup, delivery
    }

    /// A place a rider serves: a job, or one end of a shipment.
    public struct Stop: Sendable, Equatable {
        public var id: UInt64
        public var kind: StopKind
        public var location: Int
        public var service: Int
        /// Sorted, disjoint; service must start inside one of them.
        public var windows: [ClosedRange<Int>]

        public init(id: UInt64, kind: StopKind, location: Int, service: Int = 0, windows: [ClosedRange<Int>] = []) {
            self.id = id
            self.kind = kind
            self.location = location
            self.service = service
            self.windows = windows.isEmpty ? [0...Vehicle.endOfTime] : windows.sorted { $0.lowerBound < $1.lowerBound }
        }
    }

    /// What must be planned together: a job (one stop) or a shipment (its pickup, then its delivery, by one rider).
    public struct Request: Sendable {
        public var stops: [Stop]
        /// Carried from the route's start to a job (a delivery), or from a pickup onwards.
        public var delivery: [Int]
        /// Picked up at a job and carried to the route's end; for shipments, the amount between its two stops.
        public var pickup: [Int]
        public var skills: Set<Int>
        public var priority: Int

        public static func job(_ stop: Stop, delivery: [Int], pickup: [Int], skills: Set<Int> = [], priority: Int = 0)
            -> Request
        {
            Request(stops: [stop], delivery: delivery, pickup: pickup, skills: skills, priority: priority)
        }

        public static func shipment(
            pickup: Stop, delivery: Stop, amount: [Int], skills: Set<Int> = [], priority: Int = 0
        ) -> Request {
            Request(stops: [pickup, delivery], delivery: amount, pickup: amount, skills: skills, priority: priority)
        }

        public var isShipment: Bool { stops.count == 2 }
    }

    /// Seconds between matrix indices; `unreachable` where no route joins them.
    public var durations: [[Int]]
    /// What a leg costs when the request prices travel otherwise than by its time (VROOM's `costs` matrix, of the
    /// same shape); nil: the durations are the costs. Times, windows and shifts always follow the durations.
    public var costs: [[Int]]?
    public var vehicles: [Vehicle]
    public var requests: [Request]

    public static let unreachable = 1 << 30

    public init(durations: [[Int]], costs: [[Int]]? = nil, vehicles: [Vehicle], requests: [Request]) {
        self.durations = durations
        self.costs = costs
        self.vehicles = vehicles
        self.requests = requests
    }

    /// Dimensions of the amounts: the longest capacity or amount given (missing ones count as 0).
    var dimensions: Int {
        max(
            vehicles.map(\.capacity.count).max() ?? 0,
            requests.map { max($0.delivery.count, $0.pickup.count) }.max() ?? 0)
    }
}

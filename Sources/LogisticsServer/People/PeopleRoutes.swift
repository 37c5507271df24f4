import Foundation
import Hummingbird
import LogisticsCore
import LogisticsStore

/// Riders, stores and their staff, dispatchers and admins as the courier company adds them; each new person gets
/// an invitation by SMS with the link to their app. Sessions are listed and revoked here too.
struct PeopleRoutes {
    let people: any PeopleRepository
    let riders: any RiderRepository
    let signIn: any SignInRepository
    let publicAddress: PublicAddress
    let callerCache: CallerCache
    /// Forgets a rider's vehicle when it changes here, so their times follow at once.
    let vehicles: RiderVehicles
    let sessionEnding: SessionEnding
    let clock: any WallClock

    func register(in routes: inout RouteTable) {
        routes.post("/riders", roles: [.admin, .dispatcher], replay: .rerun, addRider)
        routes.get("/riders/{riderId}", showRider)
        routes.patch("/riders/{riderId}", changeRider)
        routes.post("/vendors", roles: [.admin], replay: .rerun, addVendor)
        routes.get("/vendors", listVendors)
        routes.get("/vendors/{vendorId}", showVendor)
        routes.patch("/vendors/{vendorId}", changeVendor)
        routes.post("/vendors/{vendorId}/staff", roles: [.admin], replay: .rerun, addStaffMember)
        routes.post("/staff", roles: [.admin], replay: .rerun, addStaff)
        routes.get("/people", listPeople)
        routes.get("/people/{personId}", showPerson)
        routes.patch("/people/{personId}", changePerson)
        routes.get("/people/{personId}/sessions", sessions)
        routes.delete("/sessions/{sessionId}", revokeSession)
    }

    private struct NewRider: Decodable {
        var name: String
        var phone: String
        var vehicle: Vehicle
    }
    private struct NewVendor: Decodable {
        var name: String
        var address: String
        var location: GeoPoint
        var phone: String?
    }
    private struct NewStaffMember: Decodable {
        var name: String
        var phone: String
    }
    private struct NewStaff: Decodable {
        enum StaffRole: String, Decodable {
            case dispatcher, admin
        }
        var name: String
        var phone: String
        var role: StaffRole
    }
    private struct Changes: Decodable {
        var name: String?
        var phone: String?
        var vehicle: Vehicle?
        var suspended: Bool?
    }

    private static func checked(name: String, phone: String?) throws -> (String, String?) {
        var problems: [FieldError] = []
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.isEmpty || trimmed.count > 100 {
            problems.append(FieldError(field: "name", message: "must be 1–100 characters"))
        }
        if let phone, !PhoneNumber.isValid(phone) {
            problems.append(FieldError(field: "phone", message: PhoneNumber.requirement))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        return (trimmed, phone)
    }

    /// "Asha, you have been added as a rider at Rider Logistics. Open https://…/rider and sign in with this phone."
    private func invitation(_ person: Person, as what: String, app: String, request: Request) -> QueuedTextMessage? {
        guard let phone = person.phone else { return nil }
        let base = publicAddress.base(requestAuthority: request.head.authority)
        return QueuedTextMessage(
            to: phone,
            body: "\(person.name), you have been added as \(what) at Rider Logistics. Open \(base)\(app) and sign in "
                + "with this phone number.", recipientId: person.id)
    }

    private func add(
        _ person: Person, as what: String, app: String, request: Request, context: LogisticsRequestContext
    ) async throws -> APIResponse {
        let actor = try context.caller()
        guard PeopleAccess.mayAdd(person.role, by: actor.role) else {
            throw PeopleAccess.refusal(person.role, doing: "add")
        }
        try await people.addPerson(
            person, createdBy: actor.id, invitation: invitation(person, as: what, app: app, request: request),
            now: clock.now())
        return try .json(PersonRepresentation(person), status: .created)
    }

    @Sendable func addRider(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let body = try await RequestBody.decode(NewRider.self, from: request)
        let (name, phone) = try Self.checked(name: body.name, phone: body.phone)
        let now = clock.now()
        let rider = Person(
            id: UUID(), role: .rider, name: name, phone: phone, vehicle: body.vehicle, createdAt: now, updatedAt: now)
        return try await add(rider, as: "a rider", app: "/rider", request: request, context: context)
    }

    @Sendable func addStaff(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let body = try await RequestBody.decode(NewStaff.self, from: request)
        let (name, phone) = try Self.checked(name: body.name, phone: body.phone)
        let now = clock.now()
        let role: Role = body.role == .admin ? .admin : .dispatcher
        let person = Person(id: UUID(), role: role, name: name, phone: phone, createdAt: now, updatedAt: now)
        return try await add(person, as: "a \(role.rawValue)", app: "/dispatch", request: request, context: context)
    }

    @Sendable func addStaffMember(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let vendorId = try context.uuidParameter("vendorId")
        guard let vendor = try await people.vendor(id: vendorId) else { throw LogisticsError.notFound("store") }
        let body = try await RequestBody.decode(NewStaffMember.self, from: request)
        let (name, phone) = try Self.checked(name: body.name, phone: body.phone)
        let now = clock.now()
        let person = Person(
            id: UUID(), role: .vendor, name: name, phone: phone, vendorId: vendor.id, createdAt: now, updatedAt: now)
        return try await add(
            person, as: "staff of \(vendor.name)", app: "/vendor", request: request, context: context)
    }

    @Sendable func addVendor(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin)
        let body = try await RequestBody.decode(NewVendor.self, from: request)
        var problems = body.location.validationErrors(field: "location")
        let name = body.name.trimmingCharacters(in: .whitespacesAndNewlines)
        let address = body.address.trimmingCharacters(in: .whitespacesAndNewlines)
        if name.isEmpty || name.count > 200 {
            problems.append(FieldError(field: "name", message: "must be 1–200 characters"))
        }
        if address.isEmpty || address.count > 500 {
            problems.append(FieldError(field: "address", message: "must be 1–500 characters"))
        }
        if let phone = body.phone, !PhoneNumber.isValid(phone) {
            problems.append(FieldError(field: "phone", message: PhoneNumber.requirement))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        let vendor = Vendor(
            id: UUID(), name: name, address: address,
            location: GeoPoint(lat: body.location.lat, lon: body.location.lon), phone: body.phone,
            createdAt: clock.now())
        try await people.addVendor(vendor, createdBy: actor.id)
        return try .json(VendorRepresentation(vendor), status: .created)
    }

    @Sendable func listVendors(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin, .dispatcher)
        try request.refuseUnknownQuery(allowed: ["q", "limit", "cursor"])
        let page = try await people.vendors(
            query: request.uri.queryParameters["q"].map(String.init),
            limit: try request.queryLimit(default: 50, range: 1...200),
            cursor: request.uri.queryParameters["cursor"].map(String.init))
        return try .json(VendorPage(vendors: page.vendors.map(VendorRepresentation.init), nextCursor: page.nextCursor))
    }

    private struct VendorPage: Encodable {
        var vendors: [VendorRepresentation]
        var nextCursor: String?
    }

    @Sendable func showVendor(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin, .dispatcher, .vendor)
        let vendorId = try context.uuidParameter("vendorId")
        guard actor.role != .vendor || actor.id == vendorId, let vendor = try await people.vendor(id: vendorId) else {
            throw LogisticsError.notFound("store")
        }
        return try .json(VendorRepresentation(vendor))
    }

    private struct VendorChanges: Decodable {
        var name: String?
        var address: String?
        var location: GeoPoint?
        var phone: String?
    }

    @Sendable func changeVendor(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let vendorId = try context.uuidParameter("vendorId")
        let body = try await RequestBody.decode(VendorChanges.self, from: request)
        var problems = body.location?.validationErrors(field: "location") ?? []
        let name = body.name?.trimmingCharacters(in: .whitespacesAndNewlines)
        let address = body.address?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let name, name.isEmpty || name.count > 200 {
            problems.append(FieldError(field: "name", message: "must be 1–200 characters"))
        }
        if let address, address.isEmpty || address.count > 500 {
            problems.append(FieldError(field: "address", message: "must be 1–500 characters"))
        }
        if let phone = body.phone, !PhoneNumber.isValid(phone) {
            problems.append(FieldError(field: "phone", message: PhoneNumber.requirement))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        let vendor = try await people.changeVendor(
            id: vendorId, name: name, address: address,
            location: body.location.map { GeoPoint(lat: $0.lat, lon: $0.lon) }, phone: body.phone)
        return try .json(VendorRepresentation(vendor))
    }

    private struct PersonPage: Encodable {
        var people: [PersonRepresentation]
        var nextCursor: String?
    }

    /// Everyone (admins), or the riders and stores' staff (dispatchers): by role, store and words in name or phone.
    @Sendable func listPeople(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin, .dispatcher)
        try request.refuseUnknownQuery(allowed: ["role", "vendorId", "q", "limit", "cursor"])
        let visible: [Role] = actor.role == .admin ? [.rider, .vendor, .dispatcher, .admin] : [.rider, .vendor]
        var roles = visible
        if let role = try request.queryValue("role", as: Role.self) {
            guard visible.contains(role) else {
                throw LogisticsError(.forbidden, "Only an admin may list \(role.rawValue)s")
            }
            roles = [role]
        }
        var vendorId: UUID?
        if let text = request.uri.queryParameters["vendorId"] {
            guard let id = UUID(uuidString: String(text)) else {
                throw LogisticsError.validation(field: "vendorId", "must be a UUID")
            }
            vendorId = id
        }
        let page = try await people.people(
            PeopleFilter(roles: roles, vendorId: vendorId, query: request.uri.queryParameters["q"].map(String.init)),
            limit: try request.queryLimit(default: 50, range: 1...200),
            cursor: request.uri.queryParameters["cursor"].map(String.init))
        return try .json(PersonPage(people: page.people.map { PersonRepresentation($0) }, nextCursor: page.nextCursor))
    }

    @Sendable func showRider(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin, .dispatcher)
        let riderId = try context.uuidParameter("riderId")
        guard let person = try await people.person(id: riderId), person.role == .rider else {
            throw LogisticsError.notFound("rider")
        }
        return try .json(PersonRepresentation(person, availability: try await riders.rider(id: riderId)?.availability))
    }

    @Sendable func showPerson(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        guard let person = try await people.person(id: try context.uuidParameter("personId")) else {
            throw LogisticsError.notFound("person")
        }
        return try .json(PersonRepresentation(person))
    }

    @Sendable func changeRider(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin, .dispatcher)
        return try await change(
            try context.uuidParameter("riderId"), roles: [.rider], request: request,
            suspending: PeopleAccess.maySuspend(.rider, by: actor.role))
    }

    @Sendable func changePerson(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        return try await change(
            try context.uuidParameter("personId"), roles: [.rider, .vendor, .dispatcher, .admin], request: request,
            suspending: true)
    }

    /// Suspending ends the person's sessions, so their tokens stop and their sockets close (4401) at once.
    private func change(_ id: UUID, roles: [Role], request: Request, suspending: Bool) async throws -> APIResponse {
        let body = try await RequestBody.decode(Changes.self, from: request)
        var problems: [FieldError] = []
        if let name = body.name, name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || name.count > 100 {
            problems.append(FieldError(field: "name", message: "must be 1–100 characters"))
        }
        if let phone = body.phone, !PhoneNumber.isValid(phone) {
            problems.append(FieldError(field: "phone", message: PhoneNumber.requirement))
        }
        guard problems.isEmpty else { throw LogisticsError.validation(problems) }
        if body.suspended != nil, !suspending {
            throw PeopleAccess.refusal(roles.count == 1 ? roles[0] : .admin, doing: "suspend or reinstate")
        }
        let now = clock.now()
        let person = try await people.changePerson(
            id: id, roles: roles,
            PersonChanges(
                name: body.name?.trimmingCharacters(in: .whitespacesAndNewlines), phone: body.phone,
                vehicle: body.vehicle, suspended: body.suspended),
            now: now)
        if body.suspended == true { try await sessionEnding.endAll(of: person.id, reason: "suspended", now: now) }
        if person.role == .rider {
            callerCache.forgetRider(person.id)
            vehicles.forget(person.id)
        }
        return try .json(
            PersonRepresentation(person, availability: try await riders.rider(id: person.id)?.availability))
    }

    @Sendable func sessions(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        _ = try context.caller(.admin)
        let personId = try context.uuidParameter("personId")
        guard try await people.person(id: personId) != nil else { throw LogisticsError.notFound("person") }
        let now = clock.now()
        return try .json([
            "sessions": try await signIn.sessions(personId: personId).map { SessionRepresentation($0, now: now) }
        ])
    }

    /// An admin may end anyone's session but their own last one: that would leave nobody signed in to undo it.
    @Sendable func revokeSession(_ request: Request, context: LogisticsRequestContext) async throws -> APIResponse {
        let actor = try context.caller(.admin)
        let sessionId = try context.uuidParameter("sessionId")
        let now = clock.now()
        guard let session = try await signIn.session(id: sessionId) else { throw LogisticsError.notFound("session") }
        if session.personId == actor.id || sessionId == actor.sessionId {
            let live = try await signIn.sessions(personId: session.personId).filter { $0.isLive(at: now) }
            if live.count <= 1 && session.isLive(at: now) {
                throw LogisticsError(
                    .conflict, "This is your last sign-in; revoking it would lock you out. Sign out instead.")
            }
        }
        guard try await sessionEnding.end(sessionId, reason: "revoked by an admin", now: now) else {
            throw LogisticsError(.conflict, "This session has already ended")
        }
        return APIResponse(status: .noContent, body: Data(), contentType: "application/json")
    }
}

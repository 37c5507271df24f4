/// Who may add, suspend and correct whom. Admins run the whole operation; dispatchers run the fleet, so they add
/// riders, suspend them and take them back, but never touch the staff who sign in to the dispatcher's page (a
/// dispatcher able to suspend an admin could lock the operation out) nor a store's staff, whom an admin invites
/// with their store.
public enum PeopleAccess {
    /// Whether `actor` may add a person of `role` (an invitation goes to their phone).
    public static func mayAdd(_ role: Role, by actor: Role) -> Bool {
        switch actor {
        case .admin: role != .customer
        case .dispatcher: role == .rider
        default: false
        }
    }

    /// Whether `actor` may suspend or reinstate a person of `role`.
    public static func maySuspend(_ role: Role, by actor: Role) -> Bool {
        mayAdd(role, by: actor)
    }

    /// Whether `actor` may change a person's name, phone or vehicle: an admin anyone's (a person without a phone has
    /// no other way to get one), a dispatcher a rider's.
    public static func mayCorrect(_ role: Role, by actor: Role) -> Bool {
        mayAdd(role, by: actor)
    }

    /// The refusal, in words a dispatcher can act on: 403 FORBIDDEN.
    public static func refusal(_ role: Role, doing action: String) -> LogisticsError {
        LogisticsError(.forbidden, "Only an admin may \(action) \(role.wordsForPeople); dispatchers manage riders")
    }
}

extension Role {
    /// The role as people say it, in the plural.
    var wordsForPeople: String {
        switch self {
        case .rider: "riders"
        case .customer: "customers"
        case .dispatcher: "dispatchers"
        case .admin: "admins"
        case .vendor: "a store's staff"
        }
    }
}

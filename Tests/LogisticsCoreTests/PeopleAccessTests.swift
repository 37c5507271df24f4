import LogisticsCore
import Testing

@Suite("Who may add, suspend and correct whom")
struct PeopleAccessTests {
    @Test("an admin may add, suspend and correct every person who works for the operation")
    func adminManagesEveryone() {
        for role in [Role.rider, .vendor, .dispatcher, .admin] {
            #expect(PeopleAccess.mayAdd(role, by: .admin))
            #expect(PeopleAccess.maySuspend(role, by: .admin))
            #expect(PeopleAccess.mayCorrect(role, by: .admin))
        }
        #expect(!PeopleAccess.mayAdd(.customer, by: .admin))
    }

    @Test("a dispatcher manages riders, and never a store's staff, a dispatcher or an admin")
    func dispatcherManagesRiders() {
        #expect(PeopleAccess.mayAdd(.rider, by: .dispatcher))
        #expect(PeopleAccess.maySuspend(.rider, by: .dispatcher))
        #expect(PeopleAccess.mayCorrect(.rider, by: .dispatcher))
        for role in [Role.vendor, .dispatcher, .admin, .customer] {
            #expect(!PeopleAccess.mayAdd(role, by: .dispatcher))
            #expect(!PeopleAccess.maySuspend(role, by: .dispatcher))
            #expect(!PeopleAccess.mayCorrect(role, by: .dispatcher))
        }
    }

    @Test("riders, stores and customers manage nobody")
    func othersManageNobody() {
        for actor in [Role.rider, .vendor, .customer] {
            for role in Role.allCases {
                #expect(!PeopleAccess.mayAdd(role, by: actor))
                #expect(!PeopleAccess.maySuspend(role, by: actor))
            }
        }
    }

    @Test("the refusal is a 403 that says who may")
    func refusalWords() {
        let refusal = PeopleAccess.refusal(.admin, doing: "add")
        #expect(refusal.code == .forbidden)
        #expect(refusal.code.httpStatus == 403)
        #expect(refusal.detail == "Only an admin may add admins; dispatchers manage riders")
    }
}

import Foundation
import LogisticsCore
import Testing

@Suite("A customer's rating of a delivery")
struct DeliveryRatingTests {
    @Test("1 to 5 whole stars and at most 1,000 characters of comment, counted as a person reads them")
    func validation() {
        for stars in 1...5 { #expect(DeliveryRating.validationErrors(stars: stars, comment: nil).isEmpty) }
        for stars in [0, 6, -1, Int.max] {
            #expect(DeliveryRating.validationErrors(stars: stars, comment: nil).map(\.field) == ["stars"])
        }
        // Devanagari and accented letters are one character each, however many bytes they take.
        #expect(DeliveryRating.validationErrors(stars: 5, comment: String(repeating: "ह", count: 1000)).isEmpty)
        #expect(
            DeliveryRating.validationErrors(stars: 0, comment: String(repeating: "a", count: 2000)).map(\.field)
                == ["stars", "comment"])
        #expect(DeliveryRating.cleanComment("  Quick  \n") == "Quick")
        #expect(DeliveryRating.cleanComment(" \n ") == nil && DeliveryRating.cleanComment(nil) == nil)
    }

    @Test("only a delivered order can be rated")
    func rateable() throws {
        try DeliveryRating.checkRateable(.delivered)
        for status in OrderStatus.allCases where status != .delivered {
            let error = #expect(throws: LogisticsError.self) { try DeliveryRating.checkRateable(status) }
            #expect(error?.code == .notDelivered && error?.code.httpStatus == 409)
        }
    }
}

import Foundation
import LogisticsCore
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// A fractional number where a whole one belongs is VALIDATION_FAILED naming the field, not "body: is not valid
/// JSON" (what Foundation's decoder on Linux says of it, without a path).
@Suite("Fractional numbers where whole ones belong")
struct WholeNumberTests {
    /// The `detail` of the refusal, or nil when the body decodes.
    static func refusal<T: Decodable>(_ type: T.Type, _ json: String) -> String? {
        do {
            _ = try RequestBody.decodeJSON(type, from: Data(json.utf8))
            return nil
        } catch let error as LogisticsError {
            return error.code == .validationFailed ? error.detail : "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    @Test("the field is named among many legitimate fractions, wherever it is")
    func named() {
        let job = #"{"id": 1, "location": [7.4240, 43.7347], "service": 60}"#
        let jobs = Array(repeating: job, count: 40)
        var plan = jobs
        plan[27] = #"{"id": 28, "location": [7.4251, 43.7362], "service": 60.5}"#
        let vehicles = #"[{"id": 1, "start": [7.4276, 43.7396], "capacity": [4]}]"#
        #expect(
            Self.refusal(PlanRequest.self, #"{"vehicles": \#(vehicles), "jobs": [\#(plan.joined(separator: ","))]}"#)
                == "jobs[27].service: must be a whole number")
        #expect(
            Self.refusal(
                PlanRequest.self,
                #"{"vehicles": [{"id": 1, "start": [7.4276, 43.7396], "capacity": [2.5]}], "jobs": [\#(job)]}"#)
                == "vehicles[0].capacity[0]: must be a whole number")
        #expect(
            Self.refusal(MakeOffersRequest.self, #"{"strategy": "nearest", "count": 2.5}"#)
                == "count: must be a whole number")
        var order = Fixtures.order()
        order["preparationMinutes"] = 12.5
        let body = String(decoding: try! JSONSerialization.data(withJSONObject: order), as: UTF8.self)
        #expect(Self.refusal(CreateOrderRequest.self, body) == "preparationMinutes: must be a whole number")
    }

    @Test("16,000 fractional numbers beside the culprit: still named, in one pass over the body")
    func manyFractions() throws {
        var order = Fixtures.order()
        order["preparationMinutes"] = 1.5
        order["notes"] = "ring twice"
        // Fractions the type never reads, and fractions in the fields it does: neither hides the culprit.
        order["padding"] = (0..<16_000).map { Double($0) + 0.5 }
        let body = String(decoding: try JSONSerialization.data(withJSONObject: order), as: UTF8.self)
        #expect(body.utf8.count > 100_000)
        #expect(Self.refusal(CreateOrderRequest.self, body) == "preparationMinutes: must be a whole number")
        let job = #"{"id": 1, "location": [7.4240, 43.7347], "service": 60}"#
        var jobs = Array(repeating: job, count: 4_000)
        jobs[3_999] = #"{"id": 4000, "location": [7.4251, 43.7362], "service": 60.5}"#
        let vehicles = #"[{"id": 1, "start": [7.4276, 43.7396], "capacity": [4]}]"#
        #expect(
            Self.refusal(PlanRequest.self, #"{"vehicles": \#(vehicles), "jobs": [\#(jobs.joined(separator: ","))]}"#)
                == "jobs[3999].service: must be a whole number")
    }

    @Test("whole numbers written with a fraction decode; broken JSON is still the body's fault")
    func unaffected() {
        #expect(Self.refusal(MakeOffersRequest.self, #"{"strategy": "nearest", "count": 3.0}"#) == nil)
        #expect(
            Self.refusal(MakeOffersRequest.self, #"{"strategy": "nearest", "count": 3"#) == "body: is not valid JSON")
        #expect(
            Self.refusal(MakeOffersRequest.self, #"{"strategy": "nearest", "count": "3"}"#)
                == "count: must be an integer")
    }
}

/// U+0000 in a string becomes U+FFFD: neither store keeps a NUL (SQLite would return the text only up to it,
/// PostgreSQL refuses it), and the schemas allow it, so it is replaced rather than refused.
@Suite("NUL characters in text")
struct NulCharacterTests {
    @Test("a NUL in any string arrives as U+FFFD, the rest kept; an escaped backslash before u0000 is text")
    func replaced() throws {
        var order = Fixtures.order()
        order["vendor"] = ["name": "\u{0}Café\u{0}", "address": "1 Quai", "location": ["lat": 43.73, "lon": 7.42]]
        let body = try JSONSerialization.data(withJSONObject: order)
        #expect(String(decoding: body, as: UTF8.self).contains(#"\u0000"#))
        let decoded = try RequestBody.decodeJSON(CreateOrderRequest.self, from: body)
        #expect(decoded.vendor?.name == "\u{FFFD}Café\u{FFFD}")
        #expect(decoded.validationErrors().isEmpty)
        let literal = try RequestBody.decodeJSON(
            CancelOrderRequest.self, from: Data(#"{"reason": "C:\\u0000 path"}"#.utf8))
        #expect(literal.reason == #"C:\u0000 path"#)
        let unknown = try RequestBody.decodeJSON(CancelOrderRequest.self, from: Data(#"{"x\u0000": 1}"#.utf8))
        #expect(unknown.reason == nil)
    }
}

import Foundation
import FuzzSupport
import LogisticsCore
import RoadRouting
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Every JSON request body under deterministic fuzzing: bytes mutated, values swapped for edge cases (huge and
/// negative zero numbers, NaN, lone surrogates, impossible dates, deep nesting), keys dropped or repeated. Each case
/// decodes and passes the route's own checks, or is VALIDATION_FAILED naming a field; never a crash or a hang.
@Suite("Parser fuzzing: JSON request bodies", .timeLimit(.minutes(2)))
struct JSONBodyFuzzTests {
    /// A JSON document kept as a tree, so a mutation can put raw text (even invalid JSON) at any node.
    indirect enum Value: Sendable {
        case raw(String)
        case object([(String, Value)])
        case array([Value])

        var text: String {
            switch self {
            case .raw(let text): text
            case .object(let members): "{" + members.map { "\"\($0.0)\":\($0.1.text)" }.joined(separator: ",") + "}"
            case .array(let items): "[" + items.map(\.text).joined(separator: ",") + "]"
            }
        }
    }

    struct Body: Sendable {
        var name: String
        var sample: Value
        var check: @Sendable (Data) throws -> Void
    }

    static func string(_ text: String) -> Value { .raw("\"\(text)\"") }
    static let point = Value.object([("lat", .raw("43.7347")), ("lon", .raw("7.424")), ("accuracyM", .raw("6.5"))])
    static let time = string("2026-11-25T10:00:00.000Z")
    static let uuid = string("6f1c2a3e-0000-4000-8000-000000000001")
    static let now = Date(timeIntervalSince1970: 1_795_604_400)  // an hour after the samples' times

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try RequestBody.decodeJSON(type, from: data)
    }

    static func refuse(_ errors: [FieldError]) throws { if !errors.isEmpty { throw LogisticsError.validation(errors) } }

    static let bodies: [Body] = [
        Body(
            name: "CreateOrderRequest",
            sample: .object([
                ("externalRef", string("ORD-42")), ("podType", string("OTP")), ("notes", string("Ring twice")),
                (
                    "vendor",
                    .object([("name", string("Café")), ("address", string("Place du Casino")), ("location", point)])
                ),
                (
                    "customer",
                    .object([
                        ("id", uuid), ("name", string("Priya")), ("phone", string("+377 93 15 00 01")),
                        ("address", string("Quai Antoine 1er")), ("location", point),
                    ])
                ),
            ]), check: { try refuse(decode(CreateOrderRequest.self, $0).validationErrors()) }),
        Body(
            name: "MakeOffersRequest (riders)", sample: .object([("riderIds", .array([uuid, uuid]))]),
            check: { _ = try decode(MakeOffersRequest.self, $0).targets(roadTime: nil) }),
        Body(
            name: "MakeOffersRequest (nearest)",
            sample: .object([("strategy", string("nearest")), ("count", .raw("3"))]),
            check: { _ = try decode(MakeOffersRequest.self, $0).targets(roadTime: nil) }),
        Body(
            name: "StatusChangeRequest",
            sample: .object([
                ("status", string("ARRIVED_AT_STORE")), ("location", point), ("occurredAt", time), ("eventId", uuid),
                ("farFromDestinationConfirmed", .raw("false")), ("reason", .raw("null")),
            ]),
            check: {
                let change = try decode(StatusChangeRequest.self, $0)
                try refuse(change.location?.validationErrors(field: "location") ?? [])
            }),
        Body(
            name: "OTPProofRequest",
            sample: .object([
                ("type", string("OTP")), ("value", string("0420")), ("capturedAt", time), ("location", point),
            ]),
            check: { try refuse(decode(OTPProofRequest.self, $0).location.validationErrors(field: "location")) }),
        Body(
            name: "ReportIssueRequest",
            sample: .object([
                ("type", string("CUSTOMER_UNAVAILABLE")), ("note", string("No answer")), ("location", point),
                ("occurredAt", time),
            ]), check: { _ = try decode(ReportIssueRequest.self, $0) }),
        Body(
            name: "LocationBatch",
            sample: .object([
                (
                    "fixes",
                    .array([
                        .object([
                            ("lat", .raw("43.7347")), ("lon", .raw("7.424")), ("accuracyM", .raw("5")),
                            ("speedMps", .raw("8.5")), ("headingDeg", .raw("90")), ("recordedAt", time),
                        ])
                    ])
                )
            ]),
            check: {
                let batch = try decode(LocationRoutes.Batch.self, $0)
                try refuse(batch.fixes.enumerated().flatMap { $1.validationErrors(field: "fixes[\($0)]", now: now) })
            }),
        Body(
            name: "CancelOrderRequest", sample: .object([("reason", string("Shop closed"))]),
            check: {
                _ = try decode(CancelOrderRequest.self, $0)
            }),
        Body(
            name: "DispatcherDecisionRequest", sample: .object([("reason", string("Checked"))]),
            check: {
                _ = try decode(DispatcherDecisionRequest.self, $0)
            }),
        Body(
            name: "AvailabilityRequest", sample: .object([("status", string("ONLINE"))]),
            check: {
                _ = try decode(AvailabilityRequest.self, $0)
            }),
        Body(
            name: "DeviceRequest",
            sample: .object([
                ("platform", string("android")), ("pushToken", string("abc:123")), ("locale", string("hi")),
            ]),
            check: { _ = try decode(DeviceRoutes.DeviceRequest.self, $0) }),
        Body(
            name: "WebhookRequest",
            sample: .object([
                ("url", string("https://hooks.example.com/x")), ("events", .array([string("*")])),
                ("secret", string("0123456789abcdef")),
            ]),
            check: {
                let hook = try decode(WebhookRoutes.CreateRequest.self, $0)
                if let problem = WebhookAddress.problem(with: hook.url, allowPrivate: false) {
                    throw LogisticsError.validation(field: "url", problem)
                }
            }),
    ]

    /// Values decoders get wrong: out-of-range and negative-zero numbers, bare NaN, escapes, impossible dates.
    static let edgeValues = [
        "null", "true", "0", "-0", "-1", "1e400", "-1e400", "9223372036854775808", "-9223372036854775809",
        "1.7976931348623157e308", "5e-324", "NaN", "-Infinity", "\"NaN\"", "\"\"", "\" \"", "\"\\u0000\"",
        "\"\\ud800\"", "\"\\uDFFF\\uD800\"", "\"\u{1F6F5}\u{200D}\"", "[]", "{}", "[null]", "\"2026-02-30T00:00:00Z\"",
        "\"9999-12-31T23:59:60.999Z\"", "\"0000-01-01T00:00:00Z\"", "\"2026-11-25T10:00:00.123456789+14:00\"",
        "\"ffffffff-ffff-ffff-ffff-ffffffffffff\"", "\"\(String(repeating: "9", count: 400))\"",
        String(repeating: "9", count: 400), "\"\(String(repeating: "é", count: 3_000))\"",
    ]

    @Test("mutated JSON bodies decode or give VALIDATION_FAILED naming a field")
    func mutatedBodies() async throws {
        var turns = CooperativeTurns()
        for body in Self.bodies {
            await turns.pass()
            #expect(throws: Never.self, "\(body.name)'s sample") { try body.check(Data(body.sample.text.utf8)) }
        }
        var mutator = ByteMutator(SeededGenerator(state: 19))
        var decoded = 0
        for index in 0..<12_000 {
            await turns.pass()
            let body = Self.bodies[index % Self.bodies.count]
            let text =
                (index / Self.bodies.count) % 2 == 0
                ? Self.mutateValue(body.sample, &mutator).text
                : String(decoding: mutator.mutate(Array(body.sample.text.utf8)), as: UTF8.self)
            let elapsed = timed {
                do {
                    try body.check(Data(text.utf8))
                    decoded += 1
                } catch let error as LogisticsError {
                    ParserFuzzTests.expectClear(error, [.validationFailed], index)
                } catch {
                    Issue.record("case \(index) (\(body.name)): \(type(of: error)) \(error)")
                }
            }
            #expect(elapsed < ParserFuzzTests.perCase, "case \(index) (\(body.name)) took \(elapsed)")
        }
        #expect(decoded > 1_000, "the corpus must reach the checks behind the decoder")
    }

    @Test("deep nesting and oversized bodies are refused quickly")
    func nesting() {
        let limit = RequestBody.jsonLimit
        let cases = [
            String(repeating: "[", count: limit), String(repeating: "{\"a\":", count: limit / 5),
            "{\"fixes\":" + String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000) + "}",
            "{\"reason\":\"" + String(repeating: "\\u0041", count: limit / 6) + "\"}", "", " ", "\u{FEFF}{}",
        ]
        for (index, text) in cases.enumerated() {
            for body in Self.bodies {
                let elapsed = timed {
                    do {
                        try body.check(Data(text.utf8))
                    } catch let error as LogisticsError {
                        ParserFuzzTests.expectClear(error, [.validationFailed], index)
                    } catch {
                        Issue.record("case \(index) (\(body.name)): \(type(of: error)) \(error)")
                    }
                }
                #expect(elapsed < .seconds(2), "case \(index) (\(body.name)) took \(elapsed)")
            }
        }
    }

    /// One structural change: a value replaced by an edge value, a key dropped, repeated or renamed.
    static func mutateValue(_ value: Value, _ mutator: inout ByteMutator<SeededGenerator>) -> Value {
        switch value {
        case .raw:
            return .raw(edgeValues[mutator.int(0...edgeValues.count - 1)])
        case .array(var items):
            if items.isEmpty || mutator.int(0...4) == 0 {
                return .raw(edgeValues[mutator.int(0...edgeValues.count - 1)])
            }
            let at = mutator.int(0...items.count - 1)
            if mutator.int(0...3) == 0 { items += Array(repeating: items[at], count: mutator.int(1...600)) }
            items[at] = mutateValue(items[at], &mutator)
            return .array(items)
        case .object(var members):
            guard !members.isEmpty else { return value }
            let at = mutator.int(0...members.count - 1)
            switch mutator.int(0...5) {
            case 0: members.remove(at: at)
            case 1: members.append(members[at])
            case 2: members[at].0 += "x"
            case 3: return .raw(edgeValues[mutator.int(0...edgeValues.count - 1)])
            default: members[at].1 = mutateValue(members[at].1, &mutator)
            }
            return .object(members)
        }
    }
}

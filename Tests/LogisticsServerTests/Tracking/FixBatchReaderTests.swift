import Foundation
import FuzzSupport
import LogisticsCore
import RoadRouting
import Testing

@testable import LogisticsServer

/// The rider's fix batches are read off their bytes (`FixBatchReader`) and only fall back to `JSONDecoder`. The
/// reader must never read a message differently from `JSONDecoder`: whatever it reads, the decoder reads to the
/// same values; whatever it does not, the decoder answers (or refuses with its error).
@Suite("Fix batches read off their bytes")
struct FixBatchReaderTests {
    /// What the decoder makes of a message, with the reader's optional fields.
    struct Decoded: Decodable, Equatable {
        var type: String?
        var ref: String?
        var fixes: [LocationFix]?
    }

    static func decoded(_ text: String) -> FixBatchReader.Batch? {
        guard let value = try? RequestBody.decodeJSON(Decoded.self, from: Data(text.utf8)) else { return nil }
        return FixBatchReader.Batch(type: value.type, ref: value.ref, fixes: value.fixes)
    }

    /// Read by the reader or not at all; never read to other values than the decoder's.
    static func expectAgreement(_ text: String, _ note: String) -> Bool {
        guard let read = FixBatchReader.read(text) else { return false }
        #expect(read == decoded(text), "\(note): \(text)")
        return true
    }

    @Test("the messages phones and the load generator send take the fast path, to the decoder's values")
    func phonesMessages() throws {
        let generator =
            #"{"type":"locations","ref":"17","fixes":[{"lat":43.73841234567891,"lon":7.4216,"accuracyM":5,"#
            + #""speedMps":6.6,"headingDeg":90,"recordedAt":"2026-11-29T10:00:00.123Z"}]}"#
        #expect(Self.expectAgreement(generator, "generator"))
        let fixes = [
            LocationFix(
                lat: 43.738412345678912, lon: -7.000000000000001, accuracyM: 12.5, speedMps: nil, headingDeg: 359.9,
                recordedAt: Date(epochMillis: 1_795_000_000_123)),
            LocationFix(lat: 0, lon: 180, recordedAt: Date(epochMillis: 1_795_000_001_000)),
        ]
        let body = String(decoding: try APIJSON.encoder.encode(["fixes": fixes]), as: UTF8.self)
        #expect(Self.expectAgreement(body, "encoder"))
        #expect(FixBatchReader.read(body)?.fixes == fixes)
        let spaced =
            "\n { \"fixes\" : [ { \"recordedAt\" : \"2026-11-29T10:00:00Z\" , \"lon\" : -0.5 , "
            + "\"lat\" : -0 , \"speedMps\" : null } ] , \"ref\" : null , \"type\" : \"locations\" }\r\n\t"
        #expect(Self.expectAgreement(spaced, "whitespace"))
    }

    @Test(
        "what the reader leaves to the decoder",
        arguments: [
            #"{"type":"locations","ref":"a\"b","fixes":[]}"#,  // an escape
            #"{"type":"locations","ref":"é","fixes":[]}"#,  // outside ASCII
            #"{"type":"locations","fixes":[{"lat":4.37e1,"lon":7,"recordedAt":"2026-11-29T10:00:00Z"}]}"#,
            #"{"type":"locations","fixes":[{"lat":043.7,"lon":7,"recordedAt":"2026-11-29T10:00:00Z"}]}"#,
            #"{"type":"locations","fixes":[{"lat":43.,"lon":7,"recordedAt":"2026-11-29T10:00:00Z"}]}"#,
            #"{"type":"locations","fixes":[{"lat":43.7,"lat":43.8,"lon":7,"recordedAt":"2026-11-29T10:00:00Z"}]}"#,
            #"{"type":"locations","fixes":[{"lat":43.7,"lon":7,"recordedAt":"2026-11-29T10:00:00Z","x":1}]}"#,
            #"{"type":"locations","fixes":[{"lat":43.7,"lon":7}]}"#,  // no recordedAt
            #"{"type":"locations","fixes":[{"lat":"43.7","lon":7,"recordedAt":"2026-11-29T10:00:00Z"}]}"#,
            #"{"type":"locations","fixes":[{"lat":43.7,"lon":7,"recordedAt":"yesterday"}]}"#,
            #"{"type":"locations","fixes":null}"#,
            #"{"type":"locations","fixes":[null]}"#,
            #"{"type":"locations","fixes":[],}"#,
            #"{"type":"locations","fixes":[]} x"#,
            #"{"type":"locations","fixes":[]"#,
            #"["locations"]"#,
            "",
        ])
    func leftToTheDecoder(_ text: String) {
        #expect(FixBatchReader.read(text) == nil)
    }

    @Test("generated messages: any key order, spacing, nulls and number shapes read as the decoder reads them")
    func generated() {
        var random = SeededGenerator(state: 24)
        var fast = 0
        for index in 0..<4_000 {
            let text = Self.message(&random)
            if Self.expectAgreement(text, "case \(index)") { fast += 1 }
        }
        // Both paths are exercised: most messages are plain, some carry what only the decoder reads.
        #expect(fast > 1_000 && fast < 4_000, "\(fast) of 4,000 read off the bytes")
    }

    @Test("damaged messages are never read to other values than the decoder's")
    func damaged() {
        var random = SeededGenerator(state: 2411)
        var mutator = ByteMutator(SeededGenerator(state: 2412))
        var fast = 0
        for index in 0..<6_000 {
            let damaged = mutator.mutate(Array(Self.message(&random).utf8))
            guard let text = String(validating: damaged, as: UTF8.self) else { continue }
            if Self.expectAgreement(text, "case \(index)") { fast += 1 }
        }
        #expect(fast > 0)
    }

    @Test("the socket's ack is the bytes APIJSON.encoder wrote for it")
    func ack() throws {
        struct Ack: Encodable {
            var accepted: Int
            var duplicates: Int
            var ref: String?
            var rejected: Int
            var rejections: [LocationIngest.Receipt.Rejection]
            var type = "ack"
        }
        let rejections = [
            LocationIngest.Receipt.Rejection(index: 0, reason: "recordedAt is older than 24 hours"),
            LocationIngest.Receipt.Rejection(index: 7, reason: "a \"quoted\"\nreason/é"),
        ]
        for (receipt, ref) in [
            (LocationIngest.Receipt(accepted: 3, rejected: 0, duplicates: 0, rejections: []), "17"),
            (LocationIngest.Receipt(accepted: 0, rejected: 4, duplicates: 2, rejections: rejections), nil),
            (LocationIngest.Receipt(accepted: 1, rejected: 0, duplicates: 0, rejections: []), #"r"/\é"#),
        ] {
            let expected = Ack(
                accepted: receipt.accepted, duplicates: receipt.duplicates, ref: ref, rejected: receipt.rejected,
                rejections: receipt.rejections)
            let written = RiderStreamAnswers.ack(receipt, ref: ref)
            #expect(written == String(decoding: try APIJSON.encoder.encode(expected), as: UTF8.self))
        }
    }

    // MARK: generated messages

    static func message(_ random: inout SeededGenerator) -> String {
        var members: [String] = []
        if chance(0.95, &random) { members.append(#""type":\#(pick(["\"locations\"", "\"ping\"", "3"], &random))"#) }
        if chance(0.7, &random) {
            members.append(
                #""ref":\#(pick(["\"\(Int.random(in: 0...99_999, using: &random))\"", "null", "\"a\\nb\"", "7"], &random))"#
            )
        }
        if chance(0.97, &random) {
            let fixes = (0..<Int.random(in: 0...4, using: &random)).map { _ in fix(&random) }
            members.append(#""fixes":[\#(fixes.joined(separator: space(&random) + "," + space(&random)))]"#)
        }
        if chance(0.03, &random) { members.append(#""extra":1"#) }
        if chance(0.02, &random), let repeated = members.first { members.append(repeated) }
        members.shuffle(using: &random)
        return space(&random) + "{" + space(&random)
            + members.joined(separator: space(&random) + "," + space(&random)) + space(&random) + "}" + space(&random)
    }

    static func fix(_ random: inout SeededGenerator) -> String {
        var members = [
            #""lat":\#(number(&random))"#, #""lon":\#(number(&random))"#,
            #""recordedAt":"\#(pick(["2026-11-29T10:00:00.123Z", "2026-11-29T10:00:00Z", "2026-11-29t10:00:00.5+02:00", "2026-11-29T10:00:00.123456789Z", "2026-02-30T10:00:00Z"], &random))""#,
        ]
        for key in ["accuracyM", "speedMps", "headingDeg"] where chance(0.6, &random) {
            members.append(#""\#(key)":\#(chance(0.2, &random) ? "null" : number(&random))"#)
        }
        if chance(0.02, &random) { members.removeFirst() }
        members.shuffle(using: &random)
        return "{" + members.joined(separator: space(&random) + ",") + "}"
    }

    /// Numbers as phones and encoders write them, and shapes only the decoder reads.
    static func number(_ random: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<30, using: &random) {
        case 0: return String(Int.random(in: -180...180, using: &random))
        case 1: return "-0"
        case 2: return pick(["1e-05", "4.37E1", "0.5e+2", "012", "1.", "-", ".5", "0x10", "Infinity", "true"], &random)
        case 3:
            // 17 to 25 significant digits: past 2⁵³, where the division is not exact.
            let digits = (0..<Int.random(in: 17...25, using: &random)).map { _ in
                String(Int.random(in: 0...9, using: &random))
            }
            return "43." + digits.joined()
        default:
            return Double.random(in: -180...180, using: &random).description
        }
    }

    static func space(_ random: inout SeededGenerator) -> String {
        chance(0.85, &random) ? "" : pick([" ", "\n", "\t ", "\r\n  "], &random)
    }

    static func chance(_ probability: Double, _ random: inout SeededGenerator) -> Bool {
        Double.random(in: 0..<1, using: &random) < probability
    }

    static func pick(_ choices: [String], _ random: inout SeededGenerator) -> String {
        choices.randomElement(using: &random)!
    }
}

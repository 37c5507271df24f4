import Foundation
import FuzzSupport
import LogisticsCore
import RoadRouting
import Testing

@testable import LogisticsServer
@testable import TestSupport

/// Outside bytes under deterministic fuzzing (issue #20, point 16): the photo proof's multipart form and photo
/// sniffing (JSON bodies: JSONBodyFuzzTests). Each case must end in a value or a problem the client can act on
/// (VALIDATION_FAILED with named fields, or 413/415 for the photo), within a time bound; a crash ends the run.
/// The seed and the case index in a failure message replay the case.
@Suite("Parser fuzzing: multipart forms and photos", .timeLimit(.minutes(2)))
struct ParserFuzzTests {
    static let perCase = Duration.milliseconds(500)

    static let boundary = "----fuzz0123456789"

    static func form(photo: [UInt8], fields: [(String, String)]) -> [UInt8] {
        var body = ""
        for (name, value) in fields {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.jpg\"\r\n"
        body += "Content-Type: image/jpeg\r\n\r\n"
        return Array(body.utf8) + photo + Array("\r\n--\(boundary)--\r\n".utf8)
    }

    static let fields = [
        ("capturedAt", "2026-11-25T10:00:00.000Z"), ("lat", "43.7347"), ("lon", "7.4240"), ("accuracyM", "6.5"),
    ]

    @Test("multipart/form-data: mutated photo forms give the form or a clear problem")
    func multipart() async throws {
        var turns = CooperativeTurns()
        let seeds = [
            Self.form(photo: Photos.jpeg, fields: Self.fields), Self.form(photo: Photos.png, fields: Self.fields),
            Self.form(photo: [], fields: []),
        ]
        let parsed = try PhotoProofForm(bytes: seeds[0], boundary: Self.boundary, photoLimit: 1 << 20)
        #expect(parsed.format == .jpeg && Array(parsed.photo) == Photos.jpeg && parsed.location.lat == 43.7347)
        var mutator = ByteMutator(SeededGenerator(state: 16))
        var outcomes: [String: Int] = [:]
        for index in 0..<10_000 {
            await turns.pass()
            let input = mutator.mutate(seeds[index % seeds.count])
            let elapsed = timed {
                do {
                    let form = try PhotoProofForm(bytes: input, boundary: Self.boundary, photoLimit: 1 << 20)
                    #expect(PhotoFormat.sniff(form.photo) == form.format)
                    outcomes["parsed", default: 0] += 1
                } catch let error as LogisticsError {
                    outcomes[error.code.rawValue, default: 0] += 1
                    Self.expectClear(error, [.validationFailed, .unsupportedMediaType, .payloadTooLarge], index)
                } catch {
                    Issue.record("case \(index): \(error)")
                }
            }
            #expect(elapsed < Self.perCase, "case \(index) took \(elapsed)")
        }
        // The corpus must reach past the form's framing into the fields and the photo.
        #expect(outcomes["parsed", default: 0] > 300, "\(outcomes)")
        #expect(outcomes["UNSUPPORTED_MEDIA_TYPE", default: 0] > 30, "\(outcomes)")
    }

    @Test("a part whose headers run into the next delimiter is malformed, not a crash (it trapped the server)")
    func headersIntoDelimiter() {
        // Found by the fuzzing below: the body's range ended before it started, and the process died.
        for body in [
            "--b\r\nContent-Disposition: form-data; name=\"lat\"\r\n\r\n--b--\r\n",
            "--b\r\nContent-Disposition: form-data; name=\"lat\"\r\n\r\n--b\r\nContent-Disposition: form-data; "
                + "name=\"lon\"\r\n\r\n7\r\n--b--\r\n",
        ] {
            #expect(throws: LogisticsError.validation(field: "body", "is not well-formed multipart/form-data")) {
                _ = try MultipartForm(bytes: Array(body.utf8), boundary: "b")
            }
        }
        // An empty body is still a part: headers, blank line, nothing, CRLF, delimiter.
        let empty = "--b\r\nContent-Disposition: form-data; name=\"lat\"\r\n\r\n\r\n--b--\r\n"
        #expect((try? MultipartForm(bytes: Array(empty.utf8), boundary: "b"))?.text("lat") == "")
    }

    @Test("multipart boundaries from mutated Content-Type headers")
    func boundaries() async {
        var turns = CooperativeTurns()
        var mutator = ByteMutator(SeededGenerator(state: 17))
        let header = Array("multipart/form-data; boundary=\"\(Self.boundary)\"; charset=utf-8".utf8)
        for index in 0..<3_000 {
            await turns.pass()
            let text = String(decoding: mutator.mutate(header), as: UTF8.self)
            if let boundary = MultipartForm.boundary(fromContentType: text) {
                #expect(!boundary.isEmpty && boundary.count <= 70, "case \(index): \(boundary)")
                // Whatever boundary a header names, the parser must cope with a body that uses it or not.
                _ = try? MultipartForm(bytes: Self.form(photo: Photos.png, fields: Self.fields), boundary: boundary)
            }
        }
    }

    @Test("photo sniffing: damaged headers are recognised only when their signature holds")
    func photoSniffing() async {
        var turns = CooperativeTurns()
        let heic = [0, 0, 0, 24] + Array("ftypheic".utf8) + [UInt8](repeating: 0, count: 20)
        let webp = Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WEBPVP8 ".utf8) + [UInt8](repeating: 0, count: 20)
        let seeds = [Photos.jpeg, Photos.png, heic, webp]
        for seed in seeds { #expect(PhotoFormat.sniff(seed) != nil) }
        var mutator = ByteMutator(SeededGenerator(state: 18))
        for index in 0..<4_000 {
            await turns.pass()
            let seed = seeds[index % seeds.count]
            let input = index % 5 == 0 ? Array(seed.prefix(mutator.int(0...40))) : mutator.mutate(seed)
            guard let format = PhotoFormat.sniff(input) else { continue }
            let head = Array(input.prefix(16))
            switch format {
            case .jpeg: #expect(head.starts(with: [0xFF, 0xD8, 0xFF]), "case \(index)")
            case .png: #expect(head.starts(with: Photos.png.prefix(8)) && head[12..<16].elementsEqual("IHDR".utf8))
            case .webp: #expect(head.starts(with: "RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8))
            case .heic: #expect(head[4..<8].elementsEqual("ftyp".utf8), "case \(index)")
            }
        }
        for length in 0..<64 { _ = PhotoFormat.sniff(mutator.randomBytes(length)) }
    }

    static func expectClear(_ error: LogisticsError, _ allowed: [ErrorCode], _ index: Int) {
        #expect(allowed.contains(error.code), "case \(index): \(error)")
        #expect(!error.detail.isEmpty, "case \(index)")
        if error.code == .validationFailed {
            guard case .fieldErrors(let fields)? = error.extras["errors"] else {
                Issue.record("case \(index): VALIDATION_FAILED without field errors")
                return
            }
            #expect(!fields.isEmpty && fields.allSatisfy { !$0.field.isEmpty && !$0.message.isEmpty }, "case \(index)")
        }
    }
}

import Foundation
import LogisticsCore

/// The photo proof's `multipart/form-data` body read into what the store needs: the photo (sniffed as JPEG, PNG,
/// HEIC or WebP, its metadata removed), its capture time and where it was taken. Pure, so the parser fuzz tests can drive it with bytes.
struct PhotoProofForm {
    var photo: ArraySlice<UInt8>
    var format: PhotoFormat
    var capturedAt: Date
    var location: GeoPoint

    init(bytes: [UInt8], boundary: String, photoLimit: Int) throws {
        let form = try MultipartForm(bytes: bytes, boundary: boundary)
        var errors: [FieldError] = []
        func number(_ name: String) -> Double? {
            guard let text = form.text(name) else {
                errors.append(FieldError(field: name, message: "is required"))
                return nil
            }
            guard let value = Double(text), value.isFinite else {
                errors.append(FieldError(field: name, message: "must be a number"))
                return nil
            }
            return value
        }
        let photo = form.part("photo")
        if photo == nil { errors.append(FieldError(field: "photo", message: "is required")) }
        var capturedAt: Date? = nil
        if let text = form.text("capturedAt") {
            capturedAt = RFC3339.date(from: text)
            if capturedAt == nil {
                errors.append(FieldError(field: "capturedAt", message: "must be an RFC 3339 date-time"))
            }
        } else {
            errors.append(FieldError(field: "capturedAt", message: "is required"))
        }
        let lat = number("lat")
        let lon = number("lon")
        let accuracy = number("accuracyM")
        var location: GeoPoint? = nil
        if let lat, let lon, let accuracy {
            let point = GeoPoint(lat: lat, lon: lon, accuracyM: accuracy)
            errors += point.validationErrors(field: "").map {
                FieldError(field: String($0.field.dropFirst()), message: $0.message)
            }
            location = point
        }
        guard errors.isEmpty, let photo, let capturedAt, let location else { throw LogisticsError.validation(errors) }
        guard photo.body.count <= photoLimit else {
            throw LogisticsError(
                .payloadTooLarge, "The photo is larger than \(photoLimit / 1024 / 1024) MiB",
                extras: ["limitBytes": .int(photoLimit)])
        }
        guard let format = PhotoFormat.sniff(photo.body) else {
            throw LogisticsError(.unsupportedMediaType, "The photo must be a JPEG, PNG, HEIC or WebP image")
        }
        // Where and with what phone it was taken go before the photo is stored or shown to anyone.
        guard let stripped = PhotoMetadata.strip(Array(photo.body), format: format) else {
            throw LogisticsError(
                .unsupportedMediaType, "The photo is not a readable \(format.rawValue.uppercased()) image")
        }
        self.photo = stripped[...]
        self.format = format
        self.capturedAt = capturedAt
        self.location = location
    }
}

import Foundation

/// How long housekeeping keeps what it deletes or anonymises.
public struct RetentionSettings: Sendable, Equatable {
    /// Days riders' location fixes are kept (by the time they arrived).
    public var fixesDays = 30
    /// Days photo proofs are kept, then their files and rows are deleted.
    public var photosDays = 90
    /// Days after an order ends before its customer's details are anonymised.
    public var personalDataDays = 90

    public init() {}

    static var environment: [EnvironmentSetting<Self>] {
        [
            .whole("LOGISTICS_RETAIN_FIXES_DAYS", \.fixesDays, in: 1...3650),
            .whole("LOGISTICS_RETAIN_PHOTOS_DAYS", \.photosDays, in: 1...3650),
            .whole("LOGISTICS_RETAIN_PERSONAL_DATA_DAYS", \.personalDataDays, in: 1...3650),
        ]
    }
}

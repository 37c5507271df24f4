import Foundation

/// The outcome of a delivery-code attempt. Wrong attempts are committed before the caller reports them.
public enum OTPAttemptOutcome: Sendable, Equatable {
    case verified
    case wrong(attemptsRemaining: Int)
    case locked
}

/// How many wrong delivery codes a task takes before the code locks (the rider then proves with a photo or asks a
/// dispatcher): enough for a customer's typo or two, too few to guess a code.
public enum DeliveryCodeAttempts {
    /// What a wrong code does to a task that had failed `previousFailures` times: the count to store and the answer.
    public static func afterWrongCode(previousFailures: Int) -> (failures: Int, outcome: OTPAttemptOutcome) {
        let failures = previousFailures + 1
        guard failures >= DeliveryRules.maximumOTPAttempts else {
            return (failures, .wrong(attemptsRemaining: DeliveryRules.maximumOTPAttempts - failures))
        }
        return (failures, .locked)
    }

    /// Before the code is compared: a locked code answers locked, a task already proven answers verified (a retry).
    public static func answerWithoutChecking(_ task: DeliveryTask) -> OTPAttemptOutcome? {
        if task.otpLocked { return .locked }
        if task.podAccepted { return .verified }
        return nil
    }
}

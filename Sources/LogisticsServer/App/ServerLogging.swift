import Logging

/// `json` for log collectors, `text` for a person at a terminal.
public enum LogFormat: String, Sendable {
    case text
    case json
}

extension ServerConfiguration {
    /// JSON in production unless told otherwise; text while developing.
    public var effectiveLogFormat: LogFormat { logFormat ?? (environment == .production ? .json : .text) }
}

public enum ServerLogging {
    /// The server's logger. A factory rather than `LoggingSystem.bootstrap`, which may run once per process and
    /// would tie every later server in the same process (tests, the demo) to the first one's choice.
    public static func makeLogger(_ configuration: ServerConfiguration, label: String = "rider-logistics") -> Logger {
        var logger =
            switch configuration.effectiveLogFormat {
            case .json: Logger(label: label) { JSONLogHandler(label: $0) }
            case .text: Logger(label: label) { StreamLogHandler.standardError(label: $0) }
            }
        logger.logLevel = configuration.logLevel
        return logger
    }
}

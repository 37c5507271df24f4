import Prometheus

/// Every metric the server exports, with the help text Prometheus shows for it. One place, because the registry
/// refuses the same name made twice with different help.
struct MetricName: Sendable {
    let name: String
    let help: String

    static let httpRequests = MetricName(name: "http_requests_total", help: "HTTP requests by route, method and status")
    static let httpRequestDuration = MetricName(
        name: "http_request_duration_seconds", help: "Time to answer an HTTP request, by route, method and status")
    static let webSocketConnections = MetricName(name: "websocket_connections", help: "Open WebSockets by stream")
    static let webSocketCutOff = MetricName(
        name: "websocket_cut_off_total", help: "WebSockets closed for their client's behaviour (behind, flood, ping)")
    static let webSocketReadsHeld = MetricName(
        name: "websocket_reads_held_total", help: "Times a socket stopped reading until its waiting messages drained")
    static let notificationsSent = MetricName(
        name: "notifications_sent_total", help: "Push and webhook deliveries by provider and outcome")
    static let notificationQueueDepth = MetricName(
        name: "notification_queue_depth", help: "Notifications waiting to be sent")
    static let notificationOldestPending = MetricName(
        name: "notification_oldest_pending_seconds", help: "Age of the oldest notification waiting to be sent")
    static let routingDuration = MetricName(
        name: "routing_duration_seconds", help: "Time to compute a route, by provider")
    static let matrixDuration = MetricName(
        name: "matrix_duration_seconds", help: "Time to compute a travel matrix, by provider")
    static let dispatchDecisionDuration = MetricName(
        name: "dispatch_decision_seconds", help: "Time automatic dispatch takes to decide on one order")
    static let trafficCustomisationDuration = MetricName(
        name: "traffic_customisation_seconds",
        help: "Time to fold live speeds into a map's fastest-route hierarchy and swap it in, by profile")
    static let trafficLiveArcs = MetricName(
        name: "traffic_live_arcs", help: "Arcs whose route weight comes from a live speed, by profile")
    static let trafficFeedEntries = MetricName(
        name: "traffic_feed_entries_total", help: "Speeds an external feed sent, by outcome (applied or the refusal)")
    static let etaAbsoluteError = MetricName(
        name: "eta_absolute_error_seconds",
        help: "How far each ETA promised on the way to the customer was from the arrival, by minutes to go")
    static let routingProviderFailures = MetricName(
        name: "routing_provider_failures_total", help: "Routes a provider failed to compute")

    var descriptor: MetricNameDescriptor { MetricNameDescriptor(metricName: name, unitName: "", helpText: help) }
}

extension PrometheusCollectorRegistry {
    func counter(_ metric: MetricName, labels: [(String, String)] = []) -> Counter {
        makeCounter(descriptor: metric.descriptor, labels: labels)
    }

    func gauge(_ metric: MetricName, labels: [(String, String)] = []) -> Gauge {
        makeGauge(descriptor: metric.descriptor, labels: labels)
    }

    func durationHistogram(_ metric: MetricName, labels: [(String, String)], buckets: [Duration]) -> DurationHistogram {
        makeDurationHistogram(descriptor: metric.descriptor, labels: labels, buckets: buckets)
    }
}

import CoreMetrics
import MicroHTTPServer
import Prometheus
import Synchronization

/// The service's Prometheus metrics, through swift-metrics handles backed by swift-prometheus.
public final class ServiceMetrics: Sendable {
  private struct RequestKey: Hashable {
    var route: String
    var method: String
    var status: Int
  }

  private let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  /// The handles of one route, method and status.
  private struct RequestHandles {
    var counter: CoreMetrics.Counter
    var timer: CoreMetrics.Timer
  }

  /// Handles are made once per label set (making one goes through the registry's lock); after
  /// that a request costs one short lookup here.
  private let handles = Mutex<[RequestKey: RequestHandles]>([:])
  private let liveSessions: CoreMetrics.Gauge
  private let liveCoordinators: CoreMetrics.Gauge
  private let openStreams: CoreMetrics.Gauge
  private let expired: CoreMetrics.Counter
  private let expiredReported = Atomic<Int>(0)
  private let eventsSent: CoreMetrics.Counter
  private let memoryAccounted: CoreMetrics.Gauge
  private let memoryBudget: CoreMetrics.Gauge
  private let eventsReported = Atomic<Int>(0)

  public init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.defaultDurationHistogramBuckets = [
      .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
      .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10),
      .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
    ]
    self.factory = factory
    liveSessions = CoreMetrics.Gauge(label: "navstate_live_sessions", factory: factory)
    liveCoordinators = CoreMetrics.Gauge(label: "navstate_live_coordinators", factory: factory)
    openStreams = CoreMetrics.Gauge(label: "navstate_open_event_streams", factory: factory)
    memoryAccounted = CoreMetrics.Gauge(label: "navstate_memory_accounted_bytes", factory: factory)
    memoryBudget = CoreMetrics.Gauge(label: "navstate_memory_budget_bytes", factory: factory)
    expired = CoreMetrics.Counter(label: "navstate_sessions_expired_total", factory: factory)
    eventsSent = CoreMetrics.Counter(label: "navstate_events_sent_total", factory: factory)
  }

  /// Counts and times one answered request.
  public func record(_ summary: RequestSummary) {
    let key = RequestKey(
      route: summary.route ?? "unmatched", method: summary.method, status: summary.status)
    let found = handles.withLock { $0[key] } ?? makeHandles(key)
    found.counter.increment()
    let (seconds, attoseconds) = summary.duration.components
    found.timer.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }

  private func makeHandles(_ key: RequestKey) -> RequestHandles {
    let made = RequestHandles(
      counter: CoreMetrics.Counter(
        label: "navstate_http_requests_total",
        dimensions: [("route", key.route), ("method", key.method), ("status", String(key.status))],
        factory: factory),
      timer: CoreMetrics.Timer(
        label: "navstate_http_request_duration_seconds", dimensions: [("route", key.route)],
        factory: factory))
    return handles.withLock { handles in
      if let existing = handles[key] { return existing }
      handles[key] = made
      return made
    }
  }

  /// The exposition text, with the gauges read from the store at this moment.
  public func render(store: SessionStore) -> [UInt8] {
    liveSessions.record(store.liveSessions)
    liveCoordinators.record(store.liveCoordinators)
    openStreams.record(store.openStreams)
    memoryAccounted.record(store.memory.usedBytes)
    memoryBudget.record(store.memory.limit)
    // The store counts with atomics on the hot path; the counters catch up here.
    Self.catchUp(expired, to: store.expiredSessions, reported: expiredReported)
    Self.catchUp(eventsSent, to: store.eventsDelivered, reported: eventsReported)
    return registry.emitToBuffer()
  }

  private static func catchUp(
    _ counter: CoreMetrics.Counter, to total: Int, reported: borrowing Atomic<Int>
  ) {
    let previous = reported.exchange(total, ordering: .relaxed)
    if total > previous { counter.increment(by: total - previous) }
  }
}

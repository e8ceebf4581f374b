import CoreMetrics
import MicroHTTPServer
import Prometheus
import Synchronization

/// The service's Prometheus metrics, through swift-metrics handles backed by swift-prometheus.
public final class ServiceMetrics: Sendable {
  private let registry = PrometheusCollectorRegistry()
  /// Request counts and durations, one series per route pattern (and "unmatched").
  private let routes = Mutex<[String: RouteSeries]>([:])
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
    let factory = PrometheusMetricsFactory(registry: registry)
    liveSessions = CoreMetrics.Gauge(label: "navstate_live_sessions", factory: factory)
    liveCoordinators = CoreMetrics.Gauge(label: "navstate_live_coordinators", factory: factory)
    openStreams = CoreMetrics.Gauge(label: "navstate_open_event_streams", factory: factory)
    memoryAccounted = CoreMetrics.Gauge(label: "navstate_memory_accounted_bytes", factory: factory)
    memoryBudget = CoreMetrics.Gauge(label: "navstate_memory_budget_bytes", factory: factory)
    expired = CoreMetrics.Counter(label: "navstate_sessions_expired_total", factory: factory)
    eventsSent = CoreMetrics.Counter(label: "navstate_events_sent_total", factory: factory)
  }

  /// The observer for one route pattern (nil: requests no route matched), for the router to
  /// keep with the route. Patterns registered for several methods share one series.
  public func observer(forRoute route: String?) -> Router.Observer {
    let name = route ?? "unmatched"
    let series = routes.withLock { routes in
      if let existing = routes[name] { return existing }
      let made = RouteSeries(route: name)
      routes[name] = made
      return made
    }
    return { series.record($0) }
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
    let series = routes.withLock { $0.values.sorted { $0.route < $1.route } }
    return RequestExposition.render(series) + registry.emitToBuffer()
  }

  private static func catchUp(
    _ counter: CoreMetrics.Counter, to total: Int, reported: borrowing Atomic<Int>
  ) {
    let previous = reported.exchange(total, ordering: .relaxed)
    if total > previous { counter.increment(by: total - previous) }
  }
}

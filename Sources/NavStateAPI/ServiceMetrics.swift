import MicroHTTPServer
import NavStateEngine
import Prometheus
import Synchronization

/// The service's Prometheus metrics: the request series (kept per route, written by
/// `RequestExposition`) and swift-prometheus gauges and counters, each with its HELP text.
public final class ServiceMetrics: Sendable {
  private let registry = PrometheusCollectorRegistry()
  /// Request counts and durations, one series per route pattern (and "unmatched").
  private let routes = Mutex<[String: RouteSeries]>([:])
  private let liveSessions: Gauge
  private let liveCoordinators: Gauge
  private let openStreams: Gauge
  private let expired: Counter
  private let expiredReported = Atomic<Int>(0)
  private let eventsSent: Counter
  private let memoryAccounted: Gauge
  private let memoryBudget: Gauge
  private let eventsReported = Atomic<Int>(0)

  public init() {
    func named(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
      MetricNameDescriptor(namespace: "navstate", metricName: name, unitName: unit, helpText: help)
    }
    liveSessions = registry.makeGauge(descriptor: named("live_sessions", "", "Sessions open now."))
    liveCoordinators = registry.makeGauge(
      descriptor: named(
        "live_coordinators", "", "Coordinators live now, over every open session."))
    openStreams = registry.makeGauge(
      descriptor: named("open_event_streams", "", "Event streams open now."))
    memoryAccounted = registry.makeGauge(
      descriptor: named(
        "memory_accounted", "bytes",
        "Bytes the server counts as held: session trees, event logs, open event streams."))
    memoryBudget = registry.makeGauge(
      descriptor: named(
        "memory_budget", "bytes",
        "The memory budget (--max-memory); what might pass it is refused (503)."))
    expired = registry.makeCounter(
      descriptor: named(
        "sessions_expired", "total", "Sessions that expired (no call within --session-ttl)."))
    eventsSent = registry.makeCounter(
      descriptor: named(
        "events_sent", "total", "Events written to open event streams (once per stream)."))
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
    liveSessions.set(Int64(store.liveSessions))
    liveCoordinators.set(Int64(store.liveCoordinators))
    openStreams.set(Int64(store.openStreams))
    memoryAccounted.set(Int64(store.memory.usedBytes))
    memoryBudget.set(Int64(store.memory.limit))
    // The store counts with atomics on the hot path; the counters catch up here.
    Self.catchUp(expired, to: store.expiredSessions, reported: expiredReported)
    Self.catchUp(eventsSent, to: store.eventsDelivered, reported: eventsReported)
    let series = routes.withLock { $0.values.sorted { $0.route < $1.route } }
    return RequestExposition.render(series) + registry.emitToBuffer()
  }

  private static func catchUp(_ counter: Counter, to total: Int, reported: borrowing Atomic<Int>) {
    let previous = reported.exchange(total, ordering: .relaxed)
    if total > previous { counter.increment(by: Int64(total - previous)) }
  }
}

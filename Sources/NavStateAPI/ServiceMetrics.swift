public import MicroHTTPServer
public import NavStateEngine
import Synchronization

/// The service's Prometheus metrics: the request series (kept per route, written by
/// `RequestExposition`) and seven gauges and counters read from the store, each with its HELP
/// text, all rendered here by hand in the text exposition format.
///
/// One path for metrics, measured both ways (issue 23); hand rendering was the cheaper on both
/// counts, so the package no longer depends on swift-prometheus. These seven series went through
/// its `PrometheusCollectorRegistry` (gauges set and counters caught up on each scrape, then
/// `emitToBuffer()`), the request series by hand:
/// - A `GET /metrics` (`Benchmarks/instructions metrics`: callgrind, release build, 64 kept-alive
///   connections, 5,000 requests after 1,000): 322,987 instructions with the registry, 288,327
///   rendered here (-34,660, -10.7%).
/// - A clean `swift build -c release --product navstate`: swift-prometheus brings swift-atomics
///   and swift-metrics, which nothing else in the product uses: 4 targets, 33 files, 14.4k lines.
///   Built cold on their own (`--target Prometheus`, 2 cores): 38.5 s, 20.6 s of CPU; the rest
///   of the product after them: 150.7 s, 83.2 s of CPU. So a fifth of the build's CPU.
public final class ServiceMetrics: Sendable {
  /// Request counts and durations, one series per route pattern (and "unmatched").
  private let routes = Mutex<[String: RouteSeries]>([:])

  public init() {}

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

  /// The exposition text, with the gauges and counters read from the store at this moment.
  public func render(store: SessionStore) -> [UInt8] {
    let series = routes.withLock { $0.values.sorted { $0.route < $1.route } }
    var text = RequestExposition.render(series)
    StoreExposition.render(
      StoreExposition.Values(
        liveSessions: store.liveSessions,
        liveCoordinators: store.liveCoordinators,
        openStreams: store.openStreams,
        // The store counts these with atomics from its start: they are the counters' totals.
        expiredSessions: store.expiredSessions,
        eventsSent: store.eventsDelivered,
        memoryAccounted: store.memory.usedBytes,
        memoryBudget: store.memory.limit, feedItems: store.feed.itemCount,
        feedBytes: store.feed.footprint),
      into: &text)
    NavigationExposition.render(store.counters.snapshot(of: store.catalog), into: &text)
    return text
  }
}

/// What navigation did, labelled by graph and route: the families of `NavigationCounters`.
/// Each family is written with its HELP and TYPE even before it has a sample.
enum NavigationExposition {
  static func render(_ counts: NavigationCounters.Counts, into text: inout [UInt8]) {
    family(
      "navstate_route_starts_total", "Coordinators started, by graph and route.",
      counts.routeStarts, into: &text)
    family(
      "navstate_redirects_total",
      "Operations that met a closed route and showed its redirect instead, by graph and guarded route.",
      counts.redirects, into: &text)
    text.append(
      contentsOf:
        "# HELP navstate_migrations_total Sessions moved to a newer version of their graph, by graph.\n# TYPE navstate_migrations_total counter\n"
        .utf8)
    for graph in counts.migrations.keys.sorted() {
      text.append(contentsOf: "navstate_migrations_total{graph=\"\(escaped(graph))\"} ".utf8)
      StoreExposition.appendDecimal(counts.migrations[graph] ?? 0, to: &text)
      text.append(UInt8(ascii: "\n"))
    }
  }

  private static func family(
    _ name: String, _ help: String, _ samples: [NavigationCounters.RouteKey: Int],
    into text: inout [UInt8]
  ) {
    text.append(contentsOf: "# HELP \(name) \(help)\n# TYPE \(name) counter\n".utf8)
    let keys = samples.keys.sorted { ($0.graph, $0.route) < ($1.graph, $1.route) }
    for key in keys {
      text.append(
        contentsOf:
          "\(name){graph=\"\(escaped(key.graph))\",route=\"\(escaped(key.route))\"} ".utf8)
      StoreExposition.appendDecimal(samples[key] ?? 0, to: &text)
      text.append(UInt8(ascii: "\n"))
    }
  }

  /// A label value as the text format quotes it (graph and route names are plain, but a graph
  /// file may name anything).
  private static func escaped(_ value: String) -> String {
    var out = ""
    for character in value {
      switch character {
      case "\\": out += "\\\\"
      case "\"": out += "\\\""
      case "\n": out += "\\n"
      default: out.append(character)
      }
    }
    return out
  }
}

/// The exposition of the store's gauges and counters, in Prometheus's text format: for each, its
/// HELP and TYPE lines (rendered once, at first use) and one unlabelled sample.
enum StoreExposition {
  struct Values: Sendable {
    var liveSessions: Int
    var liveCoordinators: Int
    var openStreams: Int
    var expiredSessions: Int
    var eventsSent: Int
    var memoryAccounted: Int
    var memoryBudget: Int
    var feedItems: Int
    var feedBytes: Int
  }

  /// A family's HELP and TYPE lines and the name that starts its sample line, in bytes.
  private static func head(_ name: String, _ type: String, _ help: String) -> [UInt8] {
    Array("# HELP \(name) \(help)\n# TYPE \(name) \(type)\n\(name) ".utf8)
  }

  private static let heads: [[UInt8]] = [
    head("navstate_live_sessions", "gauge", "Sessions open now."),
    head(
      "navstate_live_coordinators", "gauge", "Coordinators live now, over every open session."),
    head("navstate_open_event_streams", "gauge", "Event streams open now."),
    head(
      "navstate_sessions_expired_total", "counter",
      "Sessions that expired (no call within --session-ttl)."),
    head(
      "navstate_events_sent_total", "counter",
      "Events written to open event streams (once per stream)."),
    head(
      "navstate_memory_accounted_bytes", "gauge",
      "Bytes the server counts as held: session trees, event logs, open event streams."),
    head(
      "navstate_memory_budget_bytes", "gauge",
      "The memory budget (--max-memory); what might pass it is refused (503)."),
    head("navstate_feed_items", "gauge", "Items the backend feed keeps (--feed-retention)."),
    head(
      "navstate_feed_bytes", "gauge",
      "Bytes the backend feed's items take (counted in navstate_memory_accounted_bytes)."),
  ]

  static func render(_ values: Values, into text: inout [UInt8]) {
    let samples = [
      values.liveSessions, values.liveCoordinators, values.openStreams, values.expiredSessions,
      values.eventsSent, values.memoryAccounted, values.memoryBudget, values.feedItems,
      values.feedBytes,
    ]
    for (head, value) in zip(heads, samples) {
      text.append(contentsOf: head)
      appendDecimal(value, to: &text)
      text.append(UInt8(ascii: "\n"))
    }
  }

  /// `value` in decimal digits (Prometheus reads a sample's integer as a float). A String of a
  /// 64-bit integer fits in its inline storage: nothing is allocated.
  static func appendDecimal(_ value: Int, to text: inout [UInt8]) {
    text.append(contentsOf: String(value).utf8)
  }
}

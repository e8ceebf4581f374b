import NavigationCore
import Synchronization

/// What navigation did since start, for `/metrics`: the coordinators started per route, the
/// redirects per guarded route, and the migrations per graph.
public final class NavigationCounters: Sendable {
  /// A route of a graph (by name: its versions count together).
  public struct RouteKey: Hashable, Sendable {
    public var graph: String
    public var route: String
  }

  public struct Counts: Sendable {
    public var routeStarts: [RouteKey: Int] = [:]
    public var redirects: [RouteKey: Int] = [:]
    public var migrations: [String: Int] = [:]
  }

  private let counts = Mutex(Counts())

  /// The counts now.
  public var snapshot: Counts { counts.withLock { $0 } }

  func countStarts(_ events: [NavigationEvent], graph: String) {
    counts.withLock { counts in
      for event in events {
        guard case .started(_, let route, _, _, _) = event.kind else { continue }
        counts.routeStarts[RouteKey(graph: graph, route: route), default: 0] += 1
      }
    }
  }

  func countRedirect(graph: String, route: String) {
    counts.withLock { $0.redirects[RouteKey(graph: graph, route: route), default: 0] += 1 }
  }

  func countMigration(graph: String) {
    counts.withLock { $0.migrations[graph, default: 0] += 1 }
  }
}

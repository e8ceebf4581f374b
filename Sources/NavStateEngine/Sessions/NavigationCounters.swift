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

  /// Counts the routes `events` started and the guarded routes they redirected from.
  func count(_ events: [NavigationEvent], graph: String) {
    counts.withLock { counts in
      for event in events {
        switch event.kind {
        case .started(_, let route, _, _, _):
          counts.routeStarts[RouteKey(graph: graph, route: route), default: 0] += 1
        case .navigationRedirected(let route, _, _):
          counts.redirects[RouteKey(graph: graph, route: route), default: 0] += 1
        default: break
        }
      }
    }
  }

  func countMigration(graph: String) {
    counts.withLock { $0.migrations[graph, default: 0] += 1 }
  }
}

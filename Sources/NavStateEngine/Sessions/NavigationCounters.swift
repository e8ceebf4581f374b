import NavigationCore
import Synchronization

/// What navigation did since start, for `/metrics`: the migrations per graph here, and with the
/// catalog's ``RouteCounts`` the coordinators started per route and the redirects per guarded
/// route.
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

  /// The counts now: the starts and redirects of every version of every graph (``RouteCounts``),
  /// by graph name and route.
  public func snapshot(of catalog: GraphCatalog) -> Counts {
    var snapshot = counts.withLock { $0 }
    for version in catalog.allVersions {
      let named = version.counts.snapshot
      for (route, count) in named.starts {
        snapshot.routeStarts[RouteKey(graph: version.graph.name, route: route), default: 0] += count
      }
      for (route, count) in named.redirects {
        snapshot.redirects[RouteKey(graph: version.graph.name, route: route), default: 0] += count
      }
    }
    return snapshot
  }

  func countMigration(graph: String) {
    counts.withLock { $0.migrations[graph, default: 0] += 1 }
  }
}

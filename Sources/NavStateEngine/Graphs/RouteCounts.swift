public import NavigationCore
import Synchronization

/// Coordinators started and redirects made on the routes of one graph version, by route
/// position, for `/metrics`. Each session holds the counts of its graph version, so counting
/// costs a lock and a scan of the route names (a hash of a name only past 16 routes), not a
/// table lookup by graph and route name.
public final class RouteCounts: Sendable {
  public let graph: RouteGraph
  private let counts: StripedCounter<(starts: [Int], redirects: [Int])>

  init(graph: RouteGraph) {
    self.graph = graph
    let zeros = [Int](repeating: 0, count: graph.routes.count)
    counts = StripedCounter((zeros, zeros))
  }

  /// Counts the starts and redirects among `events`.
  func count(_ events: [NavigationEvent]) {
    counts.update { counts in
      for event in events {
        switch event.kind {
        case .started(_, let route, _, _, _):
          if let index = graph.routeIndex(of: route) { counts.starts[index] += 1 }
        case .navigationRedirected(let route, _, _):
          if let index = graph.routeIndex(of: route) { counts.redirects[index] += 1 }
        default: break
        }
      }
    }
  }

  /// The counts now, by route name.
  var snapshot: (starts: [String: Int], redirects: [String: Int]) {
    let (starts, redirects) = counts.merged { total, stripe in
      for index in total.starts.indices {
        total.starts[index] += stripe.starts[index]
        total.redirects[index] += stripe.redirects[index]
      }
    }
    var named: (starts: [String: Int], redirects: [String: Int]) = ([:], [:])
    for (index, route) in graph.routes.enumerated() {
      if starts[index] > 0 { named.starts[route.name] = starts[index] }
      if redirects[index] > 0 { named.redirects[route.name] = redirects[index] }
    }
    return named
  }
}

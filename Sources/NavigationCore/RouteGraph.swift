/// A named, validated set of routes. Immutable once loaded, so sessions share one instance.
public final class RouteGraph: Sendable {
  public let name: String
  public let rootRoute: String
  /// Routes in file order: deep links try them in this order.
  public let routes: [Route]
  private let indexByName: [String: Int]

  /// Builds a graph from routes that `RouteGraph.decode` has already validated.
  init(name: String, rootRoute: String, routes: [Route]) {
    self.name = name
    self.rootRoute = rootRoute
    self.routes = routes
    var index: [String: Int] = [:]
    for (position, route) in routes.enumerated() { index[route.name] = position }
    self.indexByName = index
  }

  public func route(named name: String) -> Route? {
    indexByName[name].map { routes[$0] }
  }

  /// Whether a session (or a replaced root) may start at this route.
  public func mayBeRoot(_ route: Route) -> Bool {
    route.mayBeRoot || route.name == rootRoute
  }
}

/// A named, validated set of routes. Immutable once loaded, so sessions share one instance.
public final class RouteGraph: Sendable {
  public let name: String
  public let rootRoute: String
  /// Which version of the graph called `name` this is (1 unless the file says otherwise).
  public let version: Int
  /// How sessions of the previous version move to this one.
  public let migration: GraphMigration
  /// Routes in file order: deep links try them in this order.
  public let routes: [Route]
  private let indexByName: [String: Int]
  /// The route names in file order, searched in place of `indexByName` while there are few (see
  /// `scannedRouteCount`): comparing a name with a handful costs less than hashing it (a name of
  /// up to 15 bytes is a small string, equal to another by its bits).
  private let smallNames: [String]?
  /// For each route (by index), what may be shown from it; worked out once, when loaded, so
  /// that a state's `allowed` costs no set lookups.
  let successors: [Successors]
  /// The routes a session (or a replaced root) may start at.
  let rootChoices: Choices
  /// For each route (by index), its `requires` and `redirect`, or nil; empty when no route
  /// has either.
  let guards: [RouteGuard?]
  /// Whether any route has `requires` or `redirect`. Checked first wherever guards matter,
  /// so that a graph without them does no guard work at all.
  public let hasGuards: Bool

  /// Builds a graph from routes that `RouteGraph.decode` has already validated.
  init(
    name: String, rootRoute: String, routes: [Route], version: Int = 1,
    migration: GraphMigration = .none, guards: [RouteGuard?] = []
  ) {
    self.name = name
    self.rootRoute = rootRoute
    self.version = version
    self.migration = migration
    self.routes = routes
    let hasGuards = guards.contains { $0 != nil }
    self.hasGuards = hasGuards
    self.guards = hasGuards ? guards : []
    var index: [String: Int] = [:]
    for (position, route) in routes.enumerated() { index[route.name] = position }
    self.indexByName = index
    self.smallNames =
      routes.count <= Self.scannedRouteCount ? routes.map(\.name) : nil
    func choices(_ matching: (Route) -> Bool) -> Choices {
      Choices(routes.filter(matching))
    }
    // `Route.mayShow`, worked out per parent in time linear in the graph and its `next` lists:
    // every route without `next` may show any route, so those share one set of lists (a graph
    // of 10,000 such routes would otherwise hold 10,000 lists of 10,000 names each).
    func successors(among candidates: [Route]) -> Successors {
      Successors(
        push: Choices(candidates.filter { $0.presentations.contains(.push) }),
        sheet: Choices(candidates.filter { $0.presentations.contains(.sheet) }),
        fullScreenCover: Choices(candidates.filter { $0.presentations.contains(.fullScreenCover) }))
    }
    let fromAnyRoute = successors(among: routes)
    self.successors = routes.map { parent in
      guard let next = parent.next else { return fromAnyRoute }
      // In file order, as the lists of a route without `next` are.
      return successors(among: next.compactMap { index[$0] }.sorted().map { routes[$0] })
    }
    self.rootChoices = choices { $0.mayBeRoot || $0.name == rootRoute }
  }

  /// The position of the route called `name` in `routes` (nil: no such route).
  public func routeIndex(of name: String) -> Int? { index(of: name) }

  /// The position of the route called `name` in `routes`.
  func index(of name: String) -> Int? {
    guard let smallNames else { return indexByName[name] }
    return smallNames.firstIndex(of: name)
  }

  /// Up to this many routes, names are found by a scan rather than by hashing.
  static let scannedRouteCount = 16

  public func route(named name: String) -> Route? {
    index(of: name).map { routes[$0] }
  }

  /// Whether a session (or a replaced root) may start at this route.
  public func mayBeRoot(_ route: Route) -> Bool {
    route.mayBeRoot || route.name == rootRoute
  }
}

extension RouteGraph {
  /// Routes that may be shown in one way from one route, in file order, with what each costs.
  struct Choices: Sendable {
    let names: [String]
    let costs: [Int]
    let maxCost: Int

    init(_ routes: [Route]) {
      names = routes.map(\.name)
      costs = routes.map(\.coordinatorCost)
      maxCost = costs.max() ?? 0
    }

    /// The names of those that still fit when `room` more coordinators may be added.
    func fitting(room: Int) -> [String] {
      if maxCost <= room { return names }
      return zip(names, costs).filter { $0.1 <= room }.map(\.0)
    }
  }

  /// What may be pushed, and presented as a sheet or a full-screen cover, from one route.
  struct Successors: Sendable {
    let push: Choices
    let sheet: Choices
    let fullScreenCover: Choices

    func choices(as presentation: Presentation) -> Choices? {
      switch presentation {
      case .push: return push
      case .sheet: return sheet
      case .fullScreenCover: return fullScreenCover
      case .root, .tab: return nil
      }
    }
  }
}

extension RouteGraph {
  /// Whether `route` declares `param` sensitive (`"sensitive": true`): redacted where that
  /// applies. Unknown routes and params are not.
  public func isSensitive(route: String, param: String) -> Bool {
    self.route(named: route)?.paramSpecs[param]?.sensitive ?? false
  }

  /// Whether any route declares a sensitive param (nothing to redact otherwise).
  public var hasSensitiveParams: Bool {
    routes.contains { route in route.paramSpecs.values.contains(where: \.sensitive) }
  }
}

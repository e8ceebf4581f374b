/// One segment of a deep-link path pattern.
public enum PathSegment: Sendable, Hashable {
  case literal(String)
  case param(String)
}

/// A screen an app can show, as declared in a route graph.
public struct Route: Sendable, Hashable {
  public var name: String
  /// The deep-link pattern as written, such as `/detail/{id}`.
  public var path: String
  public var segments: [PathSegment]
  /// Parameter declarations in the order the graph file lists them.
  public var params: [(name: String, spec: ParamSpec)] {
    paramNames.compactMap { name in paramSpecs[name].map { (name, $0) } }
  }
  public var paramNames: [String]
  public var paramSpecs: [String: ParamSpec]
  /// How a deep link shows this route.
  public var presentation: Presentation
  /// What explicit calls may use.
  public var presentations: Set<Presentation>
  /// Routes that may be shown from this one; nil means any.
  public var next: Set<String>?
  /// Tab routes, in order, when this route is a tab container.
  public var tabs: [String]?
  /// Whether a session may start here (the graph's root always may).
  public var mayBeRoot: Bool
  /// How many coordinators showing this route starts: itself and, for a tab container, its tabs.
  public internal(set) var coordinatorCost: Int = 1

  public func allowsNext(_ route: String) -> Bool {
    next?.contains(route) ?? true
  }

  /// The rule of showing: `route` may be shown with `presentation` from a coordinator showing
  /// this route when it declares that presentation and this route lets it follow.
  public func mayShow(_ route: Route, as presentation: Presentation) -> Bool {
    route.presentations.contains(presentation) && allowsNext(route.name)
  }

  public static func == (lhs: Route, rhs: Route) -> Bool {
    lhs.name == rhs.name && lhs.path == rhs.path && lhs.paramNames == rhs.paramNames
      && lhs.paramSpecs == rhs.paramSpecs && lhs.presentation == rhs.presentation
      && lhs.presentations == rhs.presentations && lhs.next == rhs.next && lhs.tabs == rhs.tabs
      && lhs.mayBeRoot == rhs.mayBeRoot
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(name)
  }
}

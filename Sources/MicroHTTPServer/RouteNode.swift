/// One level of the ``Router``'s tree: children by literal segment, at most one parameter child,
/// and the routes that end here, by method.
struct RouteNode: Sendable {
  enum Key {
    case literal(String)
    case parameter
  }

  struct Route: Sendable {
    var pattern: String
    var parameterNames: [String]
    var handler: Router.Handler
  }

  var literals: [Substring: RouteNode] = [:]
  /// Empty or one element: an array only because a struct cannot hold an optional of itself.
  var parameter: [RouteNode] = []
  var routes: [String: Route] = [:]

  /// The route for `method`, HEAD falling back to GET.
  func route(for method: String) -> Route? {
    if let route = routes[method] { return route }
    return method == "HEAD" ? routes["GET"] : nil
  }

  mutating func insert(_ keys: ArraySlice<Key>, method: String, route: Route) {
    guard let key = keys.first else {
      routes[method] = route
      return
    }
    switch key {
    case .literal(let text):
      literals[Substring(text), default: RouteNode()].insert(
        keys.dropFirst(), method: method, route: route)
    case .parameter:
      if parameter.isEmpty { parameter.append(RouteNode()) }
      parameter[0].insert(keys.dropFirst(), method: method, route: route)
    }
  }

  /// The first node where `segments` end and `accept` holds, trying literal children before the
  /// parameter child (depth first, backtracking); parameter values are appended to `captures`.
  func match(
    _ segments: ArraySlice<Substring>, captures: inout [Substring],
    accept: (RouteNode) -> Bool
  ) -> RouteNode? {
    guard let segment = segments.first else {
      return accept(self) ? self : nil
    }
    let rest = segments.dropFirst()
    if let child = literals[segment],
      let found = child.match(rest, captures: &captures, accept: accept)
    {
      return found
    }
    if let child = parameter.first, !segment.isEmpty {
      captures.append(segment)
      if let found = child.match(rest, captures: &captures, accept: accept) { return found }
      captures.removeLast()
    }
    return nil
  }
}

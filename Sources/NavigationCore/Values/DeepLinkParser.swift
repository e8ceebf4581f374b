import NavJSON

/// Reads a deep-link URL into a visible path, using the graph's `path` patterns.
///
/// Accepted forms: a path (`/detail/4?x=1`), an `http(s)://host/path?query` URL (the host is
/// dropped) and a custom scheme (`myapp://detail/4`, read as `/detail/4`).
public struct DeepLinkParser: Sendable {
  public let graph: RouteGraph

  public init(graph: RouteGraph) {
    self.graph = graph
  }

  public func entries(for url: String) throws(NavigationError) -> [PathEntry] {
    let (path, query) = try split(url)
    var segments: [String] = []
    for part in path.split(separator: "/") {
      guard let segment = percentDecoded(part) else {
        throw NavigationError(.invalidURL, "segment \(quoted(part)) has a broken %-escape")
      }
      segments.append(segment)
    }
    guard !segments.isEmpty else {
      throw NavigationError(.noRouteForURL, "the URL has no path to read routes from")
    }
    var entries: [PathEntry] = []
    var routes: [Route] = []
    var position = 0
    while position < segments.count {
      guard let (route, params) = match(segments, at: position) else {
        throw NavigationError(
          .noRouteForURL, "no route matches '/\(segments[position...].joined(separator: "/"))'")
      }
      let presentation: Presentation
      if let previous = routes.last {
        presentation = previous.tabs?.contains(route.name) == true ? .tab : route.presentation
      } else {
        presentation = .root
      }
      entries.append(PathEntry(route: route.name, params: params, presentation: presentation))
      routes.append(route)
      position += route.segments.count
    }
    try applyQuery(query, to: &entries, routes: routes)
    return entries
  }

  private func split(_ url: String) throws(NavigationError) -> (path: Substring, query: Substring?)
  {
    var rest = Substring(url)
    if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
    if !rest.hasPrefix("/"), let schemeEnd = rest.firstRange(of: "://") {
      let scheme = rest[..<schemeEnd.lowerBound].lowercased()
      guard let first = scheme.first, first.isLetter,
        scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "+" || $0 == "-" || $0 == "." })
      else {
        throw NavigationError(.invalidURL, "\(quoted(scheme)) is not a URL scheme")
      }
      rest = rest[schemeEnd.upperBound...]
      if scheme == "http" || scheme == "https" {
        let hostEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        rest = rest[hostEnd...]
      }
    } else if !rest.hasPrefix("/") {
      throw NavigationError(
        .invalidURL, "a deep link is a path starting with '/' or a URL with a scheme")
    }
    guard let mark = rest.firstIndex(of: "?") else { return (rest, nil) }
    return (rest[..<mark], rest[rest.index(after: mark)...])
  }

  /// The first route, in graph order, whose whole pattern matches the segments at `position`.
  private func match(_ segments: [String], at position: Int) -> (Route, JSONObject)? {
    nextRoute: for route in graph.routes {
      let pattern = route.segments
      guard !pattern.isEmpty, position + pattern.count <= segments.count else { continue }
      var params = JSONObject()
      for (offset, part) in pattern.enumerated() {
        let segment = segments[position + offset]
        switch part {
        case .literal(let literal):
          guard literal == segment else { continue nextRoute }
        case .param(let name):
          guard let spec = route.paramSpecs[name], let value = spec.type.convert(text: segment)
          else {
            continue nextRoute
          }
          params[name] = value.json
        }
      }
      return (route, params)
    }
    return nil
  }

  /// Each query item sets the param of that name of the route it follows, the link's last
  /// (a tab route included: `/tabs/search?query=x`); items that route does not declare are
  /// ignored, as links carry tracking items of their own.
  private func applyQuery(_ query: Substring?, to entries: inout [PathEntry], routes: [Route])
    throws(NavigationError)
  {
    guard let query, !query.isEmpty else { return }
    for item in query.split(separator: "&") {
      let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      guard let name = percentDecoded(pair[0], plusAsSpace: true),
        let text = percentDecoded(pair.count > 1 ? pair[1] : "", plusAsSpace: true)
      else {
        throw NavigationError(.invalidURL, "query item \(quoted(item)) has a broken %-escape")
      }
      guard let index = routes.indices.last, let spec = routes[index].paramSpecs[name] else {
        continue
      }
      guard let value = spec.type.convert(text: text) else {
        throw NavigationError(
          .invalidParams,
          "query item \(quoted(name)) of route '\(routes[index].name)' must be \(spec.type.rawValue)"
        )
      }
      entries[index].params[name] = value.json
    }
  }
}

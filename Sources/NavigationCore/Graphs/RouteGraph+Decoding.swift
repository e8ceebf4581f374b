import NavJSON

extension RouteGraph {
  /// Reads and validates a graph document:
  ///
  ///     {"name": "demo", "root": "master", "routes": [
  ///       {"name": "detail", "path": "/detail/{id}", "params": {"id": {"type": "int", "required": true}},
  ///        "presentation": "push", "presentations": ["push"], "next": ["settings"],
  ///        "tabs": ["home", "search"], "root": false}]}
  ///
  /// Every problem is reported with `source` (the file name) and the route it is in.
  public static func decode(_ bytes: [UInt8], source: String) throws(GraphError) -> RouteGraph {
    let document: JSONValue
    do {
      document = try JSONParser.parse(bytes)
    } catch {
      throw GraphError(source: source, problem: "not valid JSON: \(error)")
    }
    return try GraphDecoder(source: source).decode(document)
  }
}

private let topLevelKeys: Set<String> = [
  "name", "root", "routes", "description", "version", "migrate",
]
private let routeKeys: Set<String> = [
  "name", "path", "params", "presentation", "presentations", "next", "tabs", "root", "description",
  "requires", "redirect",
]
private let paramKeys: Set<String> = ["type", "required", "default", "sensitive"]

private struct GraphDecoder {
  let source: String

  func fail(_ problem: String, route: String? = nil) -> GraphError {
    GraphError(source: source, route: route, problem: problem)
  }

  func decode(_ document: JSONValue) throws(GraphError) -> RouteGraph {
    guard let object = document.objectValue?.withoutNulls else {
      throw fail("the document must be an object")
    }
    if let unknown = object.keys.first(where: { !topLevelKeys.contains($0) }) {
      throw fail("unknown field '\(unknown)'")
    }
    guard let name = object["name"]?.stringValue, isGraphName(name) else {
      throw fail("'name' must be a string of letters, digits, '-' and '_'")
    }
    guard let routeList = object["routes"]?.arrayValue, !routeList.isEmpty else {
      throw fail("'routes' must be a non-empty array")
    }
    var routes: [Route] = []
    var guards: [RouteGuard?] = []
    var seen: Set<String> = []
    for element in routeList {
      let route = try decodeRoute(element)
      guard seen.insert(route.name).inserted else {
        throw fail("declared more than once", route: route.name)
      }
      routes.append(route)
      guards.append(try decodeGuard(element, route: route.name))
    }
    guard let root = object["root"]?.stringValue else {
      throw fail("'root' must name the route sessions start at")
    }
    guard seen.contains(root) else { throw fail("'root' names unknown route '\(root)'") }
    try checkReferences(routes, known: seen)
    try checkPaths(routes)
    try checkGuards(guards, of: routes)
    routes = try withCoordinatorCosts(routes)
    let versions = VersionDecoder(source: source)
    return RouteGraph(
      name: name, rootRoute: root, routes: routes, version: try versions.version(object["version"]),
      migration: try versions.migration(object["migrate"], known: seen), guards: guards)
  }

  /// `requires` (context key to a value, or an array of accepted values) and `redirect`.
  func decodeGuard(_ element: JSONValue, route: String) throws(GraphError) -> RouteGuard? {
    guard let object = element.objectValue?.withoutNulls else { return nil }
    // `requires: {}` requires nothing, as an absent one: typed clients send empty objects.
    var requiresValue = object["requires"]
    if requiresValue?.objectValue?.isEmpty == true { requiresValue = Optional.none }
    let redirectValue = object["redirect"]
    if requiresValue == nil && redirectValue == nil { return nil }
    var redirect: String?
    if let redirectValue {
      guard let name = redirectValue.stringValue else {
        throw fail("'redirect' must name a route", route: route)
      }
      redirect = name
    }
    guard let requiresObject = requiresValue?.objectValue, !requiresObject.members.isEmpty else {
      if requiresValue == nil {
        throw fail("'redirect' without 'requires' would never be used", route: route)
      }
      throw fail("'requires' must be a non-empty object of context keys", route: route)
    }
    var requirements: [RouteGuard.Requirement] = []
    for member in requiresObject.members {
      let given = member.value.arrayValue ?? [member.value]
      var accepted: [ContextValue] = []
      for value in given {
        guard let converted = ContextValue(json: value), value.arrayValue == nil else {
          throw fail(
            "'requires' key '\(member.key)' must be a string, an integer, a boolean or an array of them",
            route: route)
        }
        accepted.append(converted)
      }
      guard !accepted.isEmpty else {
        throw fail("'requires' key '\(member.key)' accepts no value", route: route)
      }
      requirements.append(RouteGuard.Requirement(key: member.key, accepted: accepted))
    }
    return RouteGuard(requires: requirements, redirect: redirect)
  }

  /// Redirects name known routes that can start on their own, never loop, and tabs have no
  /// `requires`: a tab starts with its container, so a guard on it could not hold it back.
  func checkGuards(_ guards: [RouteGuard?], of routes: [Route]) throws(GraphError) {
    let byName = Dictionary(uniqueKeysWithValues: routes.map { ($0.name, $0) })
    let guardByName = Dictionary(
      uniqueKeysWithValues: zip(routes, guards).compactMap { pair in
        pair.1.map { (pair.0.name, $0) }
      })
    let tabRoutes = Set(routes.flatMap { $0.tabs ?? [] })
    for (route, routeGuard) in zip(routes, guards) {
      guard let routeGuard else { continue }
      if tabRoutes.contains(route.name) {
        throw fail(
          "a tab may not have 'requires': it starts with its container, so guard the container",
          route: route.name)
      }
      guard let redirect = routeGuard.redirect else { continue }
      guard let target = byName[redirect] else {
        throw fail("'redirect' names unknown route '\(redirect)'", route: route.name)
      }
      if let missing = target.params.first(where: {
        $0.spec.required && $0.spec.defaultValue == nil
      }) {
        throw fail(
          "'redirect' names '\(redirect)', whose required param '\(missing.name)' has no default: a redirect starts on its own",
          route: route.name)
      }
    }
    try checkRedirectLoops(routes.map(\.name), guardByName)
  }

  /// Each route has at most one redirect, so the redirects form chains; each route is walked
  /// once, whatever the chains' lengths (a walk that meets a route already cleared stops).
  func checkRedirectLoops(_ names: [String], _ guardByName: [String: RouteGuard])
    throws(GraphError)
  {
    var cleared: Set<String> = []
    for start in names where guardByName[start] != nil && !cleared.contains(start) {
      var chain: [String] = []
      var onChain: [String: Int] = [:]
      var next: String? = start
      while let current = next, !cleared.contains(current) {
        if let position = onChain[current] {
          let loop = (chain[position...] + [current]).joined(separator: " -> ")
          throw fail("redirects loop: \(loop)", route: start)
        }
        onChain[current] = chain.count
        chain.append(current)
        next = guardByName[current]?.redirect
      }
      cleared.formUnion(chain)
    }
  }

  func decodeRoute(_ element: JSONValue) throws(GraphError) -> Route {
    guard let object = element.objectValue?.withoutNulls else {
      throw fail("every route must be an object")
    }
    guard let name = object["name"]?.stringValue else { throw fail("a route has no 'name'") }
    guard isRouteName(name) else {
      throw fail("the name must match [a-z][A-Za-z0-9_]*", route: name)
    }
    if let unknown = object.keys.first(where: { !routeKeys.contains($0) }) {
      throw fail("unknown field '\(unknown)'", route: name)
    }
    let (paramNames, paramSpecs) = try decodeParams(object["params"], route: name)
    let path: String
    if let value = object["path"] {
      guard let text = value.stringValue else { throw fail("'path' must be a string", route: name) }
      path = text
    } else {
      path =
        "/"
        + ([name] + paramNames.filter { paramSpecs[$0]?.required == true }.map { "{\($0)}" })
        .joined(separator: "/")
    }
    let segments = try parsePath(path, route: name, declared: paramSpecs)

    let presentations: Set<Presentation>
    if let value = object["presentations"] {
      guard let list = value.arrayValue, !list.isEmpty else {
        throw fail("'presentations' must be a non-empty array", route: name)
      }
      var set: Set<Presentation> = []
      for item in list {
        guard let text = item.stringValue, let presentation = Presentation(rawValue: text),
          Presentation.explicit.contains(presentation)
        else {
          throw fail("'presentations' may hold only push, sheet and fullScreenCover", route: name)
        }
        set.insert(presentation)
      }
      presentations = set
    } else {
      presentations = Set(Presentation.explicit)
    }

    let presentation: Presentation
    if let value = object["presentation"] {
      guard let text = value.stringValue, let parsed = Presentation(rawValue: text),
        Presentation.explicit.contains(parsed)
      else {
        throw fail("'presentation' must be push, sheet or fullScreenCover", route: name)
      }
      presentation = parsed
    } else {
      presentation =
        presentations.contains(.push)
        ? .push : Presentation.explicit.first { presentations.contains($0) } ?? .push
    }
    guard presentations.contains(presentation) else {
      throw fail(
        "'presentation' \(presentation.rawValue) is not among its 'presentations'", route: name)
    }

    let next = try decodeNameList(object["next"], field: "next", route: name, allowEmpty: true)
    let tabs = try decodeNameList(object["tabs"], field: "tabs", route: name, allowEmpty: false)
    if let tabs, Set(tabs).count != tabs.count {
      throw fail("'tabs' lists a route twice", route: name)
    }
    var mayBeRoot = false
    if let value = object["root"] {
      guard let flag = value.boolValue else {
        throw fail("'root' must be true or false", route: name)
      }
      mayBeRoot = flag
    }
    return Route(
      name: name, path: path, segments: segments, paramNames: paramNames, paramSpecs: paramSpecs,
      presentation: presentation, presentations: presentations, next: next.map(Set.init),
      tabs: tabs, mayBeRoot: mayBeRoot)
  }

  func decodeParams(_ value: JSONValue?, route: String) throws(GraphError) -> (
    [String], [String: ParamSpec]
  ) {
    guard let value else { return ([], [:]) }
    guard let object = value.objectValue else {
      throw fail("'params' must be an object of declarations", route: route)
    }
    var names: [String] = []
    var specs: [String: ParamSpec] = [:]
    for member in object.members {
      let name = member.key
      guard isParamName(name) else {
        throw fail("param '\(name)' must match [A-Za-z_][A-Za-z0-9_]*", route: route)
      }
      guard specs[name] == nil else { throw fail("param '\(name)' declared twice", route: route) }
      guard let declaration = member.value.objectValue?.withoutNulls else {
        throw fail("param '\(name)' must be an object with a 'type'", route: route)
      }
      if let unknown = declaration.keys.first(where: { !paramKeys.contains($0) }) {
        throw fail("param '\(name)' has unknown field '\(unknown)'", route: route)
      }
      guard let typeName = declaration["type"]?.stringValue,
        let type = ParamType(rawValue: typeName)
      else {
        throw fail("param '\(name)' needs a 'type' of string, int, number or bool", route: route)
      }
      var required = false
      if let flag = declaration["required"] {
        guard let parsed = flag.boolValue else {
          throw fail("param '\(name)': 'required' must be true or false", route: route)
        }
        required = parsed
      }
      var defaultValue: ParamValue?
      if let raw = declaration["default"] {
        guard let converted = type.convert(raw) else {
          throw fail("param '\(name)': default is not of type \(type.rawValue)", route: route)
        }
        defaultValue = converted
      }
      var sensitive = false
      if let flag = declaration["sensitive"] {
        guard let parsed = flag.boolValue else {
          throw fail("param '\(name)': 'sensitive' must be true or false", route: route)
        }
        sensitive = parsed
      }
      names.append(name)
      specs[name] = ParamSpec(
        type: type, required: required, defaultValue: defaultValue, sensitive: sensitive)
    }
    return (names, specs)
  }

  func decodeNameList(_ value: JSONValue?, field: String, route: String, allowEmpty: Bool)
    throws(GraphError) -> [String]?
  {
    guard let value else { return nil }
    guard let list = value.arrayValue else {
      throw fail("'\(field)' must be an array of route names", route: route)
    }
    // An empty list where one would be meaningless (`tabs: []`) is read as none at all: typed
    // clients send empty arrays for absent ones.
    if list.isEmpty && !allowEmpty { return nil }
    var names: [String] = []
    for item in list {
      guard let name = item.stringValue else {
        throw fail("'\(field)' must hold route names", route: route)
      }
      names.append(name)
    }
    return names
  }

  func parsePath(_ path: String, route: String, declared: [String: ParamSpec]) throws(GraphError)
    -> [PathSegment]
  {
    guard path.hasPrefix("/") else { throw fail("'path' must start with '/'", route: route) }
    var segments: [PathSegment] = []
    var used: Set<String> = []
    for part in path.split(separator: "/", omittingEmptySubsequences: false).dropFirst() {
      guard !part.isEmpty else {
        if path == "/" { break }
        throw fail("'path' has an empty segment", route: route)
      }
      if part.hasPrefix("{") {
        guard part.hasSuffix("}"), part.count > 2 else {
          throw fail("'path' segment '\(part)' is not a {param}", route: route)
        }
        let name = String(part.dropFirst().dropLast())
        guard declared[name] != nil else {
          throw fail("'path' uses {\(name)}, which is not a declared param", route: route)
        }
        guard used.insert(name).inserted else {
          throw fail("'path' uses {\(name)} twice", route: route)
        }
        segments.append(.param(name))
      } else {
        guard !part.contains("{"), !part.contains("}"), !part.contains("?"), !part.contains("#")
        else {
          throw fail("'path' segment '\(part)' has a reserved character", route: route)
        }
        segments.append(.literal(String(part)))
      }
    }
    if segments.isEmpty, path != "/" { throw fail("'path' is empty", route: route) }
    return segments
  }

  func checkReferences(_ routes: [Route], known: Set<String>) throws(GraphError) {
    for route in routes {
      if let unknown = route.next?.sorted().first(where: { !known.contains($0) }) {
        throw fail("'next' names unknown route '\(unknown)'", route: route.name)
      }
      if let unknown = route.tabs?.first(where: { !known.contains($0) }) {
        throw fail("'tabs' names unknown route '\(unknown)'", route: route.name)
      }
    }
    let byName = Dictionary(uniqueKeysWithValues: routes.map { ($0.name, $0) })
    for route in routes {
      for tab in route.tabs ?? [] {
        guard let tabRoute = byName[tab] else { continue }
        if let missing = tabRoute.params.first(where: {
          $0.spec.required && $0.spec.defaultValue == nil
        }) {
          throw fail(
            "tab '\(tab)' has required param '\(missing.name)' without a default: tabs start on their own",
            route: route.name)
        }
      }
    }
  }

  /// Two patterns are ambiguous when they have the same shape: as many segments, with equal
  /// literals and params in the same places. The second could then never be reached by a deep link.
  func checkPaths(_ routes: [Route]) throws(GraphError) {
    var shapes: [[PathSegment]: String] = [:]
    for route in routes {
      let shape = route.segments.map { segment -> PathSegment in
        if case .param = segment { return .param("") }
        return segment
      }
      if let earlier = shapes[shape] {
        let kind =
          routes.first { $0.name == earlier }?.path == route.path ? "duplicate" : "ambiguous"
        throw fail(
          "\(kind) path '\(route.path)': route '\(earlier)' already matches it", route: route.name)
      }
      shapes[shape] = route.name
    }
  }

  /// Starting a tab container starts its tabs, so the tab relation must not loop.
  func withCoordinatorCosts(_ routes: [Route]) throws(GraphError) -> [Route] {
    let byName = Dictionary(uniqueKeysWithValues: routes.map { ($0.name, $0) })
    var costs: [String: Int] = [:]
    func cost(_ name: String, visiting: inout [String]) throws(GraphError) -> Int {
      if let known = costs[name] { return known }
      if let start = visiting.firstIndex(of: name) {
        let loop = (visiting[start...] + [name]).joined(separator: " -> ")
        throw fail("tab containers contain each other: \(loop)", route: name)
      }
      visiting.append(name)
      var total = 1
      for tab in byName[name]?.tabs ?? [] { total += try cost(tab, visiting: &visiting) }
      visiting.removeLast()
      costs[name] = total
      return total
    }
    var result: [Route] = []
    for var route in routes {
      var visiting: [String] = []
      route.coordinatorCost = try cost(route.name, visiting: &visiting)
      result.append(route)
    }
    return result
  }

  func isGraphName(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.count <= 64
      && text.utf8.allSatisfy {
        isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
      }
  }

  func isRouteName(_ text: String) -> Bool {
    guard let first = text.utf8.first, first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else {
      return false
    }
    return text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") }
  }

  func isParamName(_ text: String) -> Bool {
    guard let first = text.utf8.first, !(first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
    else { return false }
    return text.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "_") }
  }

  func isAlphanumeric(_ byte: UInt8) -> Bool {
    (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
      || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
      || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
  }
}

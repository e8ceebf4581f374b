/// A routing table from method and path pattern to handler, itself an ``HTTPHandler``.
///
/// Patterns are paths whose segments are literals or `{name}` parameters:
/// `/v1/sessions/{sid}/coordinators/{cid}`. A request path is split on "/" once and walked down a
/// tree of segments, no regular expressions. Where both could match, a literal segment wins over a
/// parameter (`/v1/sessions/current` before `/v1/sessions/{sid}`), falling back to the parameter
/// when the rest of the path, or the method, has no route under the literal. Literal segments are
/// compared with the path as received (not percent-decoded); parameter values are percent-decoded.
/// A parameter never matches an empty segment.
///
/// - An unknown path answers 404, problem code "not_found".
/// - A known path without a handler for the method answers 405, problem code
///   "method_not_allowed", with an `Allow` header listing the path's methods.
/// - HEAD is served by the GET handler wherever no HEAD handler is registered (the server sends
///   the headers and drops the body), and is listed in `Allow` then.
public struct Router: HTTPHandler {
  public typealias Handler = @Sendable (HTTPRequest, PathParameters) -> HTTPResponse
  /// Told of every request once answered: for metrics and access logs.
  public typealias Observer = @Sendable (RequestSummary) -> Void

  private var root = RouteNode()
  private let observer: Observer?

  public init(observer: Observer? = nil) {
    self.observer = observer
  }

  /// Registers `handler` for `method` (case-sensitive, e.g. "GET") on `pattern`. Registering the
  /// same method and pattern again replaces the handler.
  public mutating func add(
    _ method: String, _ pattern: String, _ handler: @escaping Handler
  ) {
    var names: [String] = []
    var keys: [RouteNode.Key] = []
    for segment in Self.segments(of: pattern) {
      if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count >= 2 {
        names.append(String(segment.dropFirst().dropLast()))
        keys.append(.parameter)
      } else {
        keys.append(.literal(String(segment)))
      }
    }
    root.insert(
      keys[...], method: method,
      route: RouteNode.Route(pattern: pattern, parameterNames: names, handler: handler))
  }

  public func handle(_ request: HTTPRequest) -> HTTPResponse {
    guard let observer else { return route(request).response }
    let started = ContinuousClock.now
    let (response, pattern) = route(request)
    observer(
      RequestSummary(
        route: pattern, method: request.method, status: response.status,
        duration: ContinuousClock.now - started))
    return response
  }

  /// The response and the pattern that matched (nil when none did).
  private func route(_ request: HTTPRequest) -> (response: HTTPResponse, pattern: String?) {
    let segments = Self.segments(of: request.path)[...]
    var captures: [Substring] = []
    let method = request.method
    if let node = root.match(
      segments, captures: &captures, accept: { $0.route(for: method) != nil }),
      let route = node.route(for: method)
    {
      var parameters: [(String, String)] = []
      parameters.reserveCapacity(captures.count)
      for (name, value) in zip(route.parameterNames, captures) {
        parameters.append((name, PercentDecoding.decode(value.utf8, plusAsSpace: false)))
      }
      return (route.handler(request, PathParameters(parameters)), route.pattern)
    }
    captures.removeAll()
    if let node = root.match(segments, captures: &captures, accept: { !$0.routes.isEmpty }) {
      var response = HTTPResponse.problem(
        status: 405, code: "method_not_allowed", title: "Method Not Allowed",
        detail: "\(request.method) is not allowed on \(request.path).")
      response.headers.add("Allow", Self.allowed(node).joined(separator: ", "))
      return (response, nil)
    }
    let notFound = HTTPResponse.problem(
      status: 404, code: "not_found", title: "Not Found", detail: "No resource at \(request.path).")
    return (notFound, nil)
  }

  /// The methods `node` answers, sorted, with HEAD added where GET is.
  /// (When several patterns match the path, `Allow` lists those of the first one found.)
  private static func allowed(_ node: RouteNode) -> [String] {
    var methods = Set(node.routes.keys)
    if methods.contains("GET") { methods.insert("HEAD") }
    return methods.sorted()
  }

  /// "/a/b" -> ["a", "b"]; "/" -> [""]; a missing leading "/" is tolerated.
  private static func segments(of path: String) -> [Substring] {
    var parts = path.split(separator: "/", omittingEmptySubsequences: false)
    if parts.count > 1 && parts[0].isEmpty { parts.removeFirst() }
    return parts
  }
}

/// One answered request, as a ``Router`` observer sees it.
public struct RequestSummary: Sendable {
  /// The pattern that matched, such as `/v1/sessions/{sid}`; nil for 404 and 405 from routing.
  public var route: String?
  public var method: String
  public var status: Int
  public var duration: Duration
}

#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// A routing table from method and path pattern to handler, itself an ``HTTPHandler``.
///
/// Patterns are paths whose segments are literals or `{name}` parameters:
/// `/v1/sessions/{sid}/coordinators/{cid}`. A request path's bytes are walked down a trie of
/// segments (``RouteTrie``) in place, no regular expressions. Where both could match, a literal
/// segment wins over a parameter (`/v1/sessions/current` before `/v1/sessions/{sid}`), falling
/// back to the parameter when the rest of the path, or the method, has no route under the
/// literal. Literal segments are compared with the path as received (not percent-decoded);
/// parameter values are percent-decoded.
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

  private var trie = RouteTrie()
  /// Makes the observer of one pattern (nil: requests no route matched), once, when the route
  /// is added, so that a request reaches its route's observer without a lookup.
  private let makeObserver: (@Sendable (String?) -> Observer)?
  private let unmatchedObserver: Observer?
  /// The constant routes, looked through in order by `constantResponse`: a handful of literal
  /// paths, where comparing bytes costs less than walking the trie.
  private var constants: [Constant] = []
  /// Bit `n` is set when a constant route's path is `n` bytes long (below 64): most requests are
  /// told they match none by their length alone.
  private var constantLengths: UInt64 = 0

  private struct Constant {
    var method: String
    var pattern: String
    var path: [UInt8]
    var response: ConstantResponse
    var observer: Observer?
  }

  /// One observer for every request.
  public init(observer: Observer? = nil) {
    if let observer {
      self.init(observers: { _ in observer })
    } else {
      self.init(observers: nil)
    }
  }

  /// An observer per route pattern, from `observers`, called once per `add` and once for
  /// requests that match no route.
  public init(observers: (@Sendable (_ pattern: String?) -> Observer)?) {
    self.makeObserver = observers
    self.unmatchedObserver = observers?(nil)
  }

  /// Registers `handler` for `method` (case-sensitive, e.g. "GET") on `pattern`. Registering the
  /// same method and pattern again replaces the handler.
  public mutating func add(
    _ method: String, _ pattern: String, _ handler: @escaping Handler
  ) {
    addRoute(method, pattern, handler)
    constants.removeAll { $0.method == method && $0.pattern == pattern }
    noteConstantLengths()
  }

  /// Registers `response` as the answer to `method` on `pattern` whatever else the request holds.
  /// The server then sends it without building the request (see
  /// ``HTTPHandler/constantResponse(method:target:)``); observers still see it. Best made
  /// ``HTTPResponse/prepared()``. The pattern has no parameters.
  public mutating func add(_ method: String, _ pattern: String, constant response: HTTPResponse) {
    precondition(!pattern.contains("{"), "a constant route has no parameters")
    let observer = addRoute(method, pattern) { _, _ in response }
    let path = Array((pattern.hasPrefix("/") ? pattern : "/" + pattern).utf8)
    constants.removeAll { $0.method == method && $0.pattern == pattern }
    constants.append(
      Constant(
        method: method, pattern: pattern, path: path, response: ConstantResponse(response),
        observer: observer))
    noteConstantLengths()
  }

  private mutating func noteConstantLengths() {
    constantLengths = constants.reduce(0) { lengths, constant in
      lengths | 1 << UInt64(min(constant.path.count, 63))
    }
  }

  /// Returns the route's observer.
  @discardableResult
  private mutating func addRoute(
    _ method: String, _ pattern: String, _ handler: @escaping Handler
  ) -> Observer? {
    var names: [String] = []
    var keys: [RouteTrie.Key] = []
    var path = Substring(pattern)
    if path.hasPrefix("/") { path = path.dropFirst() }
    for segment in path.split(separator: "/", omittingEmptySubsequences: false) {
      if segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count >= 2 {
        names.append(String(segment.dropFirst().dropLast()))
        keys.append(.parameter)
      } else {
        keys.append(.literal(Array(segment.utf8)))
      }
    }
    precondition(
      names.count <= RouteTrie.Captures.capacity,
      "a route pattern has at most \(RouteTrie.Captures.capacity) parameters")
    let observer = makeObserver?(pattern)
    trie.insert(
      keys,
      route: RouteTrie.Route(
        pattern: pattern, method: method, parameterNames: names, handler: handler,
        observer: observer))
    return observer
  }

  /// A constant route's answer for exactly its method (HEAD, and everything else, goes through
  /// `handle`, which answers the same).
  public func constantResponse(method: String, target: String) -> ConstantResponse? {
    guard constantLengths != 0 else { return nil }
    var target = target
    let found: Int? = target.withUTF8 { whole -> Int? in
      guard let start = whole.baseAddress else { return nil }
      let length = RequestTarget.queryMark(in: whole) ?? whole.count
      // A path of 63 bytes or more shares the last bit with every other such length.
      guard constantLengths & 1 << UInt64(min(length, 63)) != 0 else { return nil }
      // A plain loop: `indices` here goes through generic code on every request.
      var index = 0
      while index < constants.count {
        if constants[index].path.count == length {
          // Paths are never empty (they start with "/"), so the base address exists.
          let equal = constants[index].path.withUnsafeBufferPointer {
            memcmp($0.baseAddress!, start, length) == 0
          }
          if equal && constants[index].method == method { return index }
        }
        index += 1
      }
      return nil
    }
    guard let found else { return nil }
    // A constant answer runs no handler: it takes no handler time.
    constants[found].observer?(
      RequestSummary(
        route: constants[found].pattern, method: method,
        status: constants[found].response.response.status, nanoseconds: 0))
    return constants[found].response
  }

  /// A refusal no route saw is counted with the requests that matched none.
  public func recordRefusal(method: String, status: Int) {
    unmatchedObserver?(RequestSummary(route: nil, method: method, status: status, nanoseconds: 0))
  }

  public func handle(_ request: consuming HTTPRequest) -> HTTPResponse {
    guard makeObserver != nil else { return route(request).response }
    let started = MonotonicClock.nanoseconds()
    let (response, index) = route(request)
    let elapsed = MonotonicClock.nanoseconds() &- started
    // The route's fields are read where they lie: copying a route retains every one of them.
    if let index {
      trie.routes[index].observer?(
        RequestSummary(
          route: trie.routes[index].pattern, method: request.method, status: response.status,
          nanoseconds: elapsed))
    } else {
      unmatchedObserver?(
        RequestSummary(
          route: nil, method: request.method, status: response.status, nanoseconds: elapsed))
    }
    return response
  }

  /// The response and the position of the route that matched (nil when none did).
  private func route(_ request: HTTPRequest) -> (response: HTTPResponse, route: Int?) {
    var allowNode: Int?
    var path = request.path
    let method = request.method
    var captures = RouteTrie.Captures()
    // "/a/b" and "a/b" both have the segments "a" and "b"; "/" has one empty segment.
    var skip = 0
    let found = path.withUTF8 { whole -> Int? in
      skip = whole.first == UInt8(ascii: "/") ? 1 : 0
      let bytes = UnsafeBufferPointer(rebasing: whole[skip...])
      if let index = trie.match(bytes, method: method, captures: &captures)?.route {
        return index
      }
      var ignored = RouteTrie.Captures()
      allowNode = trie.match(bytes, method: nil, captures: &ignored)?.node
      return nil
    }
    if let found {
      // The values stay in the path until a handler reads them.
      let parameters = PathParameters(
        names: trie.routes[found].parameterNames, path: path, ranges: captures, offset: skip)
      return (trie.routes[found].handler(request, parameters), found)
    }
    if let allowNode {
      var response = HTTPResponse.problem(
        status: 405, code: "method_not_allowed", title: "Method Not Allowed",
        detail: "\(request.method) is not allowed on \(request.path).")
      response.headers.add(
        "Allow", Self.allowed(trie.methods(at: allowNode)).joined(separator: ", "))
      return (response, nil)
    }
    let notFound = HTTPResponse.problem(
      status: 404, code: "not_found", title: "Not Found",
      detail: "No resource at \(request.path).")
    return (notFound, nil)
  }

  /// The methods given, sorted, with HEAD added where GET is.
  /// (When several patterns match the path, `Allow` lists those of the first one found.)
  private static func allowed(_ methods: [String]) -> [String] {
    var methods = Set(methods)
    if methods.contains("GET") { methods.insert("HEAD") }
    return methods.sorted()
  }
}

/// One answered request, as a ``Router`` observer sees it.
public struct RequestSummary: Sendable {
  /// The pattern that matched, such as `/v1/sessions/{sid}`; nil for 404 and 405 from routing.
  public var route: String?
  public var method: String
  public var status: Int
  /// How long the handler took, in nanoseconds of the monotonic clock (0 for a constant route,
  /// which runs none).
  public var nanoseconds: Int64
  public var duration: Duration { .nanoseconds(nanoseconds) }

  public init(route: String?, method: String, status: Int, nanoseconds: Int64) {
    self.route = route
    self.method = method
    self.status = status
    self.nanoseconds = nanoseconds
  }

  public init(route: String?, method: String, status: Int, duration: Duration) {
    let (seconds, attoseconds) = duration.components
    self.init(
      route: route, method: method, status: status,
      nanoseconds: seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
  }
}

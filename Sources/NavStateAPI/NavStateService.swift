public import Logging
public import MicroHTTPServer
import NavJSON
public import NavStateEngine
import NavStateWire
import NavigationCore

/// The v1 API (docs/behaviour.md section 6): maps HTTP requests to the session store and the core.
public final class NavStateService: Sendable {
  public let store: SessionStore
  public let metrics: ServiceMetrics
  let clientAddresses: ClientAddressPolicy
  let logger: Logger

  public init(
    store: SessionStore, metrics: ServiceMetrics = ServiceMetrics(),
    clientAddresses: ClientAddressPolicy = ClientAddressPolicy(), logger: Logger
  ) {
    self.store = store
    self.metrics = metrics
    self.clientAddresses = clientAddresses
    self.logger = logger
  }

  /// The routing table; every handler turns a refusal into a problem document.
  public func router() -> Router {
    var router = Router(observers: { [metrics] in metrics.observer(forRoute: $0) })
    router.add("GET", "/healthz", constant: Self.healthz)
    addWebClient(to: &router)
    router.add("GET", "/metrics") { [self] _, _ in
      HTTPResponse(
        status: 200,
        headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
        body: metrics.render(store: store))
    }
    router.add("GET", "/v1/graphs") { [self] _, _ in listGraphs() }
    router.add("GET", "/v1/graphs/{name}") { [self] request, params in
      answer { () throws(APIProblem) in try graph(request, named: params["name"] ?? "") }
    }
    router.add("PUT", "/v1/graphs/{name}") { [self] request, params in
      answer { () throws(APIProblem) in try putGraph(request, named: params["name"] ?? "") }
    }
    router.add("POST", "/v1/graphs/{name}/dry-run") { [self] request, params in
      answer { () throws(APIProblem) in
        try putGraph(request, named: params["name"] ?? "", dryRunOnly: true)
      }
    }
    router.add("POST", "/v1/graphs/{name}/replay") { [self] request, params in
      answer { () throws(APIProblem) in try replayGraph(request, named: params["name"] ?? "") }
    }
    router.add("POST", "/v1/graphs/{name}/migrate") { [self] request, params in
      answer { () throws(APIProblem) in try migrateGraph(request, named: params["name"] ?? "") }
    }
    router.add("GET", "/v1/feed") { [self] request, _ in
      answer { () throws(APIProblem) in try getFeed(request) }
    }
    router.add("GET", "/v1/feed/stream") { [self] request, _ in
      answer { () throws(APIProblem) in try streamFeed(request) }
    }
    router.add("POST", "/v1/analytics/funnel") { [self] request, _ in
      answer { () throws(APIProblem) in try funnel(request) }
    }
    router.add("POST", "/v1/sessions") { [self] request, _ in
      answer { () throws(APIProblem) in try createSession(request) }
    }
    router.add("GET", "/v1/sessions/{sid}") { [self] request, params in
      answer { () throws(APIProblem) in try getSession(request, key: sessionKey(params)) }
    }
    router.add("DELETE", "/v1/sessions/{sid}") { [self] request, params in
      let key: SessionID?
      do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
      return mutation(request, key: key) { (_, authorized) throws(APIProblem) in
        try deleteSession(request, authorized)
      }
    }
    for operation in Operation.posted {
      router.add("POST", "/v1/sessions/{sid}/\(operation.rawValue)") { [self] request, params in
        let key: SessionID?
        do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
        return mutation(request, key: key) { (claim, authorized) throws(APIProblem) in
          try mutate(request, authorized, operation: operation, idempotency: claim)
        }
      }
    }
    router.add("PUT", "/v1/sessions/{sid}/state") { [self] request, params in
      let key: SessionID?
      do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
      return mutation(request, key: key) { (claim, authorized) throws(APIProblem) in
        try mutate(request, authorized, operation: .state, idempotency: claim)
      }
    }
    router.add("DELETE", "/v1/sessions/{sid}/coordinators/{cid}") { [self] request, params in
      let key: SessionID?
      do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
      let coordinator = params["cid"] ?? ""
      return mutation(request, key: key) { (claim, authorized) throws(APIProblem) in
        try teardown(request, authorized, coordinator: coordinator, idempotency: claim)
      }
    }
    for (method, merge) in [("PUT", false), ("PATCH", true)] {
      router.add(method, "/v1/sessions/{sid}/context") { [self] request, params in
        let key: SessionID?
        do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
        return mutation(request, key: key) { (claim, authorized) throws(APIProblem) in
          try setContext(request, authorized, merge: merge, idempotency: claim)
        }
      }
    }
    for (method, clear) in [("PUT", false), ("DELETE", true)] {
      router.add(method, "/v1/sessions/{sid}/coordinators/{cid}/leave-guard") {
        [self] request, params in
        let key: SessionID?
        do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
        let coordinator = params["cid"] ?? ""
        return mutation(request, key: key) { (claim, authorized) throws(APIProblem) in
          try setLeaveGuard(
            request, authorized, coordinator: coordinator, clear: clear, idempotency: claim)
        }
      }
    }
    router.add("GET", "/v1/sessions/{sid}/history") { [self] request, params in
      answer { () throws(APIProblem) in try getHistory(request, key: sessionKey(params)) }
    }
    router.add("GET", "/v1/sessions/{sid}/recording") { [self] request, params in
      answer { () throws(APIProblem) in try getRecording(request, key: sessionKey(params)) }
    }
    router.add("POST", "/v1/sessions/{sid}/restore") { [self] request, params in
      let key: SessionID?
      do throws(APIProblem) { key = try sessionKey(params) } catch { return error.response }
      return mutation(request, key: key) { (claim, authorized) throws(APIProblem) in
        try restore(request, authorized, idempotency: claim)
      }
    }
    addShares(to: &router)
    router.add("GET", "/v1/sessions/{sid}/events") { [self] request, params in
      answer { () throws(APIProblem) in try listEvents(request, key: sessionKey(params)) }
    }
    router.add("GET", "/v1/sessions/{sid}/events/stream") { [self] request, params in
      answer { () throws(APIProblem) in try streamEvents(request, key: sessionKey(params)) }
    }
    return router
  }

  private static let healthz = HTTPResponse(
    status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
    body: Array(#"{"status":"ok"}"#.utf8)
  ).prepared()

  /// The session a route's `{sid}` names, read from the path's bytes (nil: none can have it).
  /// With `--postgres`, the session's slot is loaded first if this node does not hold it: a
  /// slot another node holds, or a database that cannot be reached, is 503 `store_unavailable`.
  func sessionKey(_ params: PathParameters) throws(APIProblem) -> SessionID? {
    // Without a loader (no --postgres) a refusal cannot happen: the id is read as before, with
    // no Result of a refusal built and destroyed on every request.
    guard store.hasLoader else { return plainKey(params) }
    return try locatedKey(params)
  }

  private func plainKey(_ params: PathParameters) -> SessionID? {
    var key: SessionID?
    params.withValue("sid") { id in key = id.flatMap(store.key(of:)) }
    return key
  }

  private func locatedKey(_ params: PathParameters) throws(APIProblem) -> SessionID? {
    var located: (SessionID, NodeName?)?
    params.withValue("sid") { id in located = id.flatMap(store.slotKey(of:)) }
    guard let (key, slot) = located else { return nil }
    if let slot { try engine { () throws(EngineRefusal) in try store.load(slot) } }
    return key
  }

  func answer(_ work: () throws(APIProblem) -> HTTPResponse) -> HTTPResponse {
    do {
      return try work()
    } catch {
      return error.response
    }
  }

  func decode(_ operation: Operation, _ body: JSONValue) throws(APIProblem) -> Command {
    do throws(NavigationError) {
      return try CommandDecoder.command(operation, body: body)
    } catch {
      throw APIProblem(error)
    }
  }
}

import Logging
import MicroHTTPServer
import NavJSON
import NavigationCore

/// The v1 API of SPEC section 5: maps HTTP requests to the session store and the core.
public final class NavStateService: Sendable {
  public let store: SessionStore
  public let metrics: ServiceMetrics
  let logger: Logger

  public init(store: SessionStore, metrics: ServiceMetrics = ServiceMetrics(), logger: Logger) {
    self.store = store
    self.metrics = metrics
    self.logger = logger
  }

  /// The routing table; every handler turns a refusal into a problem document.
  public func router() -> Router {
    var router = Router(observer: metrics.record)
    router.add("GET", "/healthz") { _, _ in Self.healthz }
    router.add("GET", "/metrics") { [self] _, _ in
      HTTPResponse(
        status: 200,
        headers: HTTPHeaders([("Content-Type", "text/plain; version=0.0.4; charset=utf-8")]),
        body: metrics.render(store: store))
    }
    router.add("GET", "/v1/graphs") { [self] _, _ in listGraphs() }
    router.add("GET", "/v1/graphs/{name}") { [self] _, params in graph(named: params["name"] ?? "")
    }
    router.add("POST", "/v1/sessions") { [self] request, _ in
      answer { () throws(APIProblem) in try createSession(request) }
    }
    router.add("GET", "/v1/sessions/{sid}") { [self] request, params in
      answer { () throws(APIProblem) in try getSession(request, id: params["sid"] ?? "") }
    }
    router.add("DELETE", "/v1/sessions/{sid}") { [self] request, params in
      answer { () throws(APIProblem) in try deleteSession(request, id: params["sid"] ?? "") }
    }
    for operation in CommandDecoder.operations {
      router.add("POST", "/v1/sessions/{sid}/\(operation)") { [self] request, params in
        answer { () throws(APIProblem) in
          try mutate(request, id: params["sid"] ?? "") { body throws(APIProblem) in
            try decode(operation, body)
          }
        }
      }
    }
    router.add("PUT", "/v1/sessions/{sid}/state") { [self] request, params in
      answer { () throws(APIProblem) in
        try mutate(request, id: params["sid"] ?? "") { body throws(APIProblem) in
          try decode("state", body)
        }
      }
    }
    router.add("DELETE", "/v1/sessions/{sid}/coordinators/{cid}") { [self] request, params in
      answer { () throws(APIProblem) in
        try teardown(request, id: params["sid"] ?? "", coordinator: params["cid"] ?? "")
      }
    }
    router.add("GET", "/v1/sessions/{sid}/events") { [self] request, params in
      answer { () throws(APIProblem) in try listEvents(request, id: params["sid"] ?? "") }
    }
    return router
  }

  private static let healthz = HTTPResponse(
    status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
    body: Array(#"{"status":"ok"}"#.utf8))

  private func answer(_ work: () throws(APIProblem) -> HTTPResponse) -> HTTPResponse {
    do {
      return try work()
    } catch {
      return error.response
    }
  }

  private func decode(_ operation: String, _ body: JSONValue) throws(APIProblem) -> Command {
    do throws(NavigationError) {
      return try CommandDecoder.command(operation, body: body)
    } catch {
      throw APIProblem(error)
    }
  }

  // MARK: Graphs

  private func listGraphs() -> HTTPResponse {
    var writer = JSONWriter(capacity: 4096)
    writer.beginObject()
    writer.key("graphs")
    writer.beginArray()
    for name in store.graphs.keys.sorted() {
      guard let graph = store.graphs[name] else { continue }
      StateJSON.writeGraph(graph, into: &writer)
    }
    writer.endArray()
    writer.endObject()
    return Self.json(200, writer.bytes)
  }

  private func graph(named name: String) -> HTTPResponse {
    guard let graph = store.graphs[name] else {
      return APIProblem(
        status: 404, code: "unknown_graph", title: "Unknown graph",
        detail: "no graph named '\(name)' is loaded"
      ).response
    }
    var writer = JSONWriter(capacity: 4096)
    StateJSON.writeGraph(graph, into: &writer)
    return Self.json(200, writer.bytes)
  }

  // MARK: Sessions

  private func createSession(_ request: HTTPRequest) throws(APIProblem) -> HTTPResponse {
    var graphName: String?
    var root: RouteRequest?
    if let body = try Self.jsonBody(request) {
      guard let object = body.objectValue else {
        throw APIProblem(NavigationError(.invalidRequest, "the body must be a JSON object"))
      }
      if let unknown = object.keys.first(where: { $0 != "graph" && $0 != "root" }) {
        throw APIProblem(
          NavigationError(.invalidRequest, "session creation has no field '\(unknown)'"))
      }
      switch object["graph"] {
      case .none, .some(.null): break
      case .some(.string(let name)): graphName = name
      case .some:
        throw APIProblem(NavigationError(.invalidRequest, "'graph' must be a graph name"))
      }
      if let rootValue = object["root"], rootValue != .null {
        do throws(NavigationError) {
          root = try CommandDecoder.rootRequest(rootValue)
        } catch {
          throw APIProblem(error)
        }
      }
    }
    let (record, token) = try store.create(graph: graphName, root: root, now: .now())
    var writer = JSONWriter(capacity: 1024)
    let version = record.data.withLock { data in
      writer.beginObject()
      writer.key("session")
      record.writeState(of: data, into: &writer)
      writer.key("token")
      writer.string(token)
      writer.endObject()
      return data.navigation.version
    }
    logger.debug("session created", metadata: ["session": "\(record.id)"])
    var response = Self.json(201, writer.bytes)
    response.headers.add("Location", "/v1/sessions/\(record.id)")
    response.headers.add("ETag", Self.etag(version))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  private func getSession(_ request: HTTPRequest, id: String) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(id: id, authorization: request.headers["authorization"])
    var writer = JSONWriter(capacity: 1024)
    let version = try record.data.withLock { (data) throws(APIProblem) -> Int in
      try Self.touch(&data, store: store)
      record.writeState(of: data, into: &writer)
      return data.navigation.version
    }
    var response = Self.json(200, writer.bytes)
    response.headers.add("ETag", Self.etag(version))
    return response
  }

  private func deleteSession(_ request: HTTPRequest, id: String) throws(APIProblem) -> HTTPResponse
  {
    let record = try store.authorize(id: id, authorization: request.headers["authorization"])
    let events = try store.end(record, reason: .deleted) { (data) throws(APIProblem) in
      try Self.checkPrecondition(request, version: data.navigation.version)
      return true
    }
    // A concurrent delete or expiry got there first: the session is gone all the same.
    guard !events.isEmpty else { throw APIProblem.sessionNotFound }
    logger.debug("session deleted", metadata: ["session": "\(id)"])
    return HTTPResponse(status: 204)
  }

  private func teardown(_ request: HTTPRequest, id: String, coordinator: String) throws(APIProblem)
    -> HTTPResponse
  {
    let record = try store.authorize(id: id, authorization: request.headers["authorization"])
    guard let target = CoordinatorID(coordinator) else {
      throw APIProblem(
        NavigationError(
          .unknownCoordinator, "'\(coordinator)' is not a coordinator id (c1, c2, ...)"))
    }
    let response = try apply(.teardown(target), to: record, request: request)
    // An already stopped coordinator is a no-op success: clients retry and gestures race.
    return response.status == 200 && response.events == 0
      ? HTTPResponse(status: 204) : response.http
  }

  private func mutate(
    _ request: HTTPRequest, id: String, command: (JSONValue) throws(APIProblem) -> Command
  ) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(id: id, authorization: request.headers["authorization"])
    let body = try Self.jsonBody(request) ?? .object(JSONObject())
    return try apply(try command(body), to: record, request: request).http
  }

  private struct Applied {
    var http: HTTPResponse
    var status: Int { http.status }
    var events: Int
  }

  /// Applies one command under the session's lock and answers `{session, events}`.
  private func apply(_ command: Command, to record: SessionRecord, request: HTTPRequest)
    throws(APIProblem) -> Applied
  {
    var writer = JSONWriter(capacity: 2048)
    let (version, events) = try record.data.withLock {
      (data) throws(APIProblem) -> (Int, [NavigationEvent]) in
      try Self.touch(&data, store: store)
      try Self.checkPrecondition(request, version: data.navigation.version)
      let events: [NavigationEvent]
      do throws(NavigationError) {
        events = try data.navigation.apply(command)
      } catch {
        throw APIProblem(error)
      }
      if !events.isEmpty {
        data.updatedAt = .now()
        store.delivered(data.record(events))
      }
      writer.beginObject()
      writer.key("session")
      record.writeState(of: data, into: &writer)
      writer.key("events")
      writer.beginArray()
      for event in events { StateJSON.writeEvent(event, into: &writer) }
      writer.endArray()
      writer.endObject()
      return (data.navigation.version, events)
    }
    store.account(events)
    var response = Self.json(200, writer.bytes)
    response.headers.add("ETag", Self.etag(version))
    return Applied(http: response, events: events.count)
  }

  private func listEvents(_ request: HTTPRequest, id: String) throws(APIProblem) -> HTTPResponse {
    let record = try store.authorize(id: id, authorization: request.headers["authorization"])
    let wantsStream = request.headers["accept"]?.contains("text/event-stream") == true
    var after: Int? = nil
    if let text = request.queryItem("after") {
      guard let value = Int(text), value >= 0 else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'after' must be a sequence number (0 or more)")
      }
      after = value
    }
    if wantsStream {
      if let text = request.headers["last-event-id"] {
        // A browser sends back the last id it saw; anything else means "start afresh".
        after = Int(Substring(text).trimmingWhitespace()).flatMap { $0 >= 0 ? $0 : nil }
      }
      return try subscribe(record, after: after)
    }
    let from = after ?? 0
    var writer = JSONWriter(capacity: 2048)
    try record.data.withLock { (data) throws(APIProblem) in
      try Self.touch(&data, store: store)
      writer.beginObject()
      if let entries = data.log.after(from) {
        writer.key("events")
        writer.beginArray()
        for entry in entries { writer.raw(entry.json) }
        writer.endArray()
      } else {
        // The events asked for are no longer kept: hand over the whole state instead.
        writer.key("events")
        writer.beginArray()
        writer.endArray()
        writer.key("reset")
        record.writeState(of: data, into: &writer)
      }
      writer.key("lastSeq")
      writer.int(data.navigation.lastSeq)
      writer.endObject()
    }
    return Self.json(200, writer.bytes)
  }

  /// Opens a Server-Sent Events stream: the events after `after` (or, when those are no longer
  /// kept or none was given, one `reset` event with the whole state), then live events.
  private func subscribe(_ record: SessionRecord, after: Int?) throws(APIProblem) -> HTTPResponse {
    let stream = try store.subscribe(record) { (data) throws(APIProblem) -> [UInt8] in
      guard !data.ended else { throw APIProblem.sessionNotFound }
      var initial = EventStreamFraming.retry(milliseconds: 2000)
      let lastSeq = data.navigation.lastSeq
      if let after, after <= lastSeq, let entries = data.log.after(after) {
        for entry in entries {
          initial += EventStreamFraming.event(id: entry.seq, type: entry.type, json: entry.json)
        }
      } else {
        var writer = JSONWriter(capacity: 1024)
        record.writeState(of: data, into: &writer)
        initial += EventStreamFraming.event(id: lastSeq, type: "reset", json: writer.bytes)
      }
      return initial
    }
    return .stream(
      headers: HTTPHeaders([
        ("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
        ("X-Accel-Buffering", "no"),
      ]), stream)
  }

  // MARK: Helpers

  /// Every authenticated call keeps the session alive for another TTL.
  private static func touch(_ data: inout SessionRecord.Data, store: SessionStore)
    throws(APIProblem)
  {
    guard !data.ended else { throw APIProblem.sessionNotFound }
    data.expiresAt = Timestamp.now().adding(seconds: store.configuration.sessionTTLSeconds)
  }

  /// `If-Match: "<version>"` (or `*`): apply only at that version.
  private static func checkPrecondition(_ request: HTTPRequest, version: Int) throws(APIProblem) {
    guard let header = request.headers["if-match"] else { return }
    let current = etag(version)
    let tags = header.split(separator: ",").map { tag in
      var text = tag.trimmingWhitespace()
      if text.hasPrefix("W/") { text = text.dropFirst(2) }
      return text
    }
    guard !tags.contains(where: { $0 == "*" || $0 == current }) else { return }
    throw APIProblem(
      status: 412, code: "version_mismatch", title: "Precondition failed",
      detail: "the session is at version \(version), not \(header)",
      extra: [("version", String(version))], headers: [("ETag", current)])
  }

  static func etag(_ version: Int) -> String { "\"\(version)\"" }

  static func json(_ status: Int, _ body: [UInt8]) -> HTTPResponse {
    HTTPResponse(
      status: status, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body)
  }

  /// The body as JSON, or nil when there is none. Refuses other media types (415) and
  /// malformed JSON (400).
  static func jsonBody(_ request: HTTPRequest) throws(APIProblem) -> JSONValue? {
    guard !request.body.isEmpty else { return nil }
    if let type = request.headers["content-type"] {
      let mediaType = type.split(separator: ";", maxSplits: 1).first?.trimmingWhitespace()
        .lowercased()
      guard mediaType == "application/json" || mediaType?.hasSuffix("+json") == true else {
        throw APIProblem(
          status: 415, code: "unsupported_media_type", title: "Unsupported media type",
          detail: "send the body as application/json, not \(type)")
      }
    }
    do {
      return try JSONParser.parse(request.body)
    } catch {
      throw APIProblem(
        status: 400, code: "malformed_json", title: "Malformed JSON", detail: "\(error)")
    }
  }
}

extension Substring {
  fileprivate func trimmingWhitespace() -> Substring {
    var text = self
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return text
  }
}

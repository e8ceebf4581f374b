import Logging
import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavStateWire
import NavigationCore

/// `/v1/graphs`: reading the loaded graphs, and (for the backend) loading new versions and
/// moving sessions onto them.
extension NavStateService {
  func listGraphs() -> HTTPResponse {
    var writer = JSONWriter(capacity: 4096)
    writer.beginObject()
    writer.key("graphs")
    writer.beginArray()
    for graph in store.catalog.newestGraphs {
      GraphJSON.write(graph, into: &writer)
    }
    writer.endArray()
    writer.endObject()
    return Self.json(200, writer.bytes)
  }

  /// The newest version, or `?version=N`.
  func graph(_ request: HTTPRequest, named name: String) throws(APIProblem) -> HTTPResponse {
    var graph = store.catalog.newest(name)
    if let text = request.queryItem("version") {
      guard let version = Int(text), version >= 1 else {
        throw APIProblem(
          status: 400, code: "invalid_query", title: "Invalid query",
          detail: "'version' must be a graph version (1 or more)")
      }
      graph = store.catalog.graph(name, version: version)
    }
    guard let graph else {
      throw APIProblem(
        status: 404, code: "unknown_graph", title: "Unknown graph",
        detail: "no graph named \(quoted(name)) is loaded at that version")
    }
    var writer = JSONWriter(capacity: 4096)
    GraphJSON.write(graph, into: &writer)
    return Self.json(200, writer.bytes)
  }

  /// `PUT /v1/graphs/{name}`: loads a new version (201), or with `?dryRun=true` says what
  /// migrating every live session to it would do and loads nothing (200). `POST
  /// /v1/graphs/{name}/dry-run` (`dryRunOnly`) is that dry run as an operation of its own, so
  /// that each operation has one answer type for typed clients.
  func putGraph(_ request: HTTPRequest, named name: String, dryRunOnly: Bool = false)
    throws(APIProblem) -> HTTPResponse
  {
    try requireBackend(request, for: dryRunOnly ? "a graph's dry run" : "loading a graph")
    let dryRun = try Self.flag(request, "dryRun") || dryRunOnly
    guard !request.body.isEmpty else {
      throw APIProblem(
        status: 422, code: "invalid_graph", title: "Invalid graph",
        detail: "send the graph's JSON as the body")
    }
    try Self.requireJSONMediaType(request)
    let graph: RouteGraph
    do {
      graph = try RouteGraph.decode(request.body, source: "the body")
    } catch {
      throw APIProblem(
        status: 422, code: "invalid_graph", title: "Invalid graph", detail: "\(error)")
    }
    guard graph.name == name else {
      throw APIProblem(
        status: 422, code: "invalid_graph", title: "Invalid graph",
        detail: "the body is graph \(quoted(graph.name)), the path names \(quoted(name))")
    }
    if let newest = store.catalog.newest(name), newest.version >= graph.version {
      throw APIProblem(.graphVersionExists(name: name, newest: newest.version))
    }
    if dryRun {
      return Self.json(200, GraphJSON.encode(store.dryRun(graph)))
    }
    try engine { () throws(EngineRefusal) in
      try store.load(GraphCatalog.Version(graph: graph, source: request.body))
    }
    logger.info(
      "graph loaded", metadata: ["graph": "\(graph.name)", "version": "\(graph.version)"])
    var writer = JSONWriter(capacity: 4096)
    GraphJSON.write(graph, into: &writer)
    var response = Self.json(201, writer)
    response.headers.add("Location", "/v1/graphs/\(graph.name)?version=\(graph.version)")
    return response
  }

  /// `POST /v1/graphs/{name}/migrate`: moves every live session of the graph to its newest
  /// version now, and answers what was done.
  func migrateGraph(_ request: HTTPRequest, named name: String) throws(APIProblem)
    -> HTTPResponse
  {
    try requireBackend(request, for: "migrating sessions")
    guard store.catalog.newest(name) != nil else {
      throw APIProblem(.unknownGraph(name))
    }
    let report = try engine { () throws(EngineRefusal) in try store.migrateAll(graph: name) }
    logger.info(
      "sessions migrated", metadata: ["graph": "\(name)", "sessions": "\(report.migrated)"])
    return Self.json(200, GraphJSON.encode(report))
  }

  /// A boolean query flag: absent or `false` is false, `true` is true, anything else 400.
  static func flag(_ request: HTTPRequest, _ name: String) throws(APIProblem) -> Bool {
    guard let text = request.queryItem(name) else { return false }
    switch text {
    case "true": return true
    case "false": return false
    default:
      throw APIProblem(
        status: 400, code: "invalid_query", title: "Invalid query",
        detail: "'\(name)' must be true or false")
    }
  }

  /// Refuses unless the request's bearer token is a backend key (401 without a token, 403
  /// `backend_only` with another).
  func requireBackend(_ request: HTTPRequest, for what: String) throws(APIProblem) {
    let result = request.headers.withFirstValue("authorization") { header in
      Result { () throws(EngineRefusal) in
        try store.requireBackend(token: header.flatMap(BearerToken.token(in:)), for: what)
      }
    }
    try engine { () throws(EngineRefusal) in try result.get() }
  }
}

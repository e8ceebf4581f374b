import MicroHTTPServer
import NavJSON
package import NavStateEngine
import NavStateWire
package import NavigationCore

/// `POST /v1/graphs/{name}/replay?version=N`: recordings (NDJSON, as `GET .../recording` gives
/// them, one after another) replayed against a graph version in scratch states, and which of
/// them it would refuse.
extension NavStateService {
  /// Bodies up to this size are taken on this route (the server's `--max-body-bytes` elsewhere).
  package static let maxReplayBytes = 4 * 1024 * 1024

  /// Whether a request is a replay, whose body may be up to ``maxReplayBytes``.
  package static func isReplay(method: String, target: String) -> Bool {
    method == "POST" && target.hasPrefix("/v1/graphs/")
      && (target.hasSuffix("/replay") || target.contains("/replay?"))
  }

  func replayGraph(_ request: HTTPRequest, named name: String) throws(APIProblem) -> HTTPResponse {
    try requireBackend(request, for: "replaying recordings")
    let isNDJSON = request.headers.withFirstValue("content-type") { value in
      value.map { String(decoding: $0, as: UTF8.self).lowercased() }?.hasPrefix(
        "application/x-ndjson") == true
    }
    guard isNDJSON else {
      throw APIProblem(
        status: 415, code: "unsupported_media_type", title: "Unsupported media type",
        detail: "send recordings as application/x-ndjson, one JSON object a line",
        headers: [("Accept", "application/x-ndjson")])
    }
    let (candidate, recordings) = try Self.recordings(in: request.body)
    let graph: RouteGraph
    if let candidate {
      graph = candidate
    } else {
      graph = try loadedGraph(named: name, request)
    }
    guard graph.name == name else {
      throw APIProblem(
        status: 422, code: "invalid_graph", title: "Invalid graph",
        detail: "the body's graph is \(quoted(graph.name)), the path names \(quoted(name))")
    }
    let diverged = GraphReplay.run(recordings, on: graph, limits: store.configuration.limits)
    var writer = JSONWriter(capacity: 256 + diverged.count * 256)
    writer.beginObject()
    writer.key("graph")
    writer.string(graph.name)
    writer.key("version")
    writer.int(graph.version)
    writer.key("recordings")
    writer.int(recordings.count)
    writer.key("replayed")
    writer.int(recordings.count - diverged.count)
    writer.key("diverged")
    writer.beginArray()
    for divergence in diverged {
      let problem = APIProblem(divergence.error)
      writer.beginObject()
      writer.key("recording")
      writer.int(divergence.recording)
      writer.key("session")
      writer.string(divergence.session)
      writer.key("version")
      writer.int(divergence.version)
      writer.key("op")
      writer.value(divergence.op)
      writer.key("status")
      writer.int(problem.status)
      writer.key("code")
      writer.string(problem.code)
      writer.key("detail")
      writer.string(problem.detail)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return Self.json(200, writer.bytes)
  }

  /// The graph version `?version=N` names (default the newest loaded).
  private func loadedGraph(named name: String, _ request: HTTPRequest) throws(APIProblem)
    -> RouteGraph
  {
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
    return graph
  }

  /// The recordings in an NDJSON body: each starts at a `{"type": "recording", ...}` line and
  /// takes the `{"type": "entry", ...}` lines after it. The body may begin with a candidate graph
  /// not loaded (`{"type": "graph", "graph": {...}}`), replayed against instead of a loaded
  /// version. Anything else is 400 `invalid_recording`, naming the line (422 `invalid_graph`
  /// for a graph that is not one).
  package static func recordings(in body: [UInt8]) throws(APIProblem) -> (
    RouteGraph?, [GraphReplay.Recording]
  ) {
    var candidate: RouteGraph?
    var recordings: [GraphReplay.Recording] = []
    var number = 0
    for line in body.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
      number += 1
      let bytes = Array(line.last == UInt8(ascii: "\r") ? line.dropLast() : line)
      guard !bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) else { continue }
      func invalid(_ why: String) -> APIProblem {
        APIProblem(
          status: 400, code: "invalid_recording", title: "Invalid recording",
          detail: "line \(number): \(why)", extra: [("line", String(number))])
      }
      guard let value = try? JSONParser.parse(bytes), value.objectValue != nil else {
        throw invalid("not a JSON object")
      }
      switch value["type"]?.stringValue {
      case "graph":
        guard candidate == nil, recordings.isEmpty, let source = value["graph"] else {
          throw invalid("a graph line comes first, once, with the graph in 'graph'")
        }
        var writer = JSONWriter(capacity: bytes.count)
        writer.value(source)
        do {
          candidate = try RouteGraph.decode(writer.bytes, source: "the body's graph line")
        } catch {
          throw APIProblem(
            status: 422, code: "invalid_graph", title: "Invalid graph", detail: "\(error)")
        }
      case "recording":
        guard let from = value["from"]?.intValue, let state = value["state"]?.objectValue else {
          throw invalid("a recording's first line needs 'from' and 'state'")
        }
        guard let path = Self.path(in: state["path"]) else {
          throw invalid("the state's 'path' must list {route, params, presentation}")
        }
        let context =
          state["context"].flatMap { (try? SessionContext(json: $0)) ?? nil } ?? SessionContext()
        recordings.append(
          GraphReplay.Recording(
            session: value["session"]?.stringValue ?? "", from: from, path: path,
            context: context, entries: []))
      case "entry":
        guard !recordings.isEmpty else { throw invalid("an entry before any recording line") }
        guard let version = value["version"]?.intValue, let op = value["op"],
          op.objectValue != nil
        else { throw invalid("an entry needs 'version' and an 'op' object") }
        recordings[recordings.count - 1].entries.append((version, op))
      default:
        throw invalid("'type' must be graph, recording or entry")
      }
    }
    return (candidate, recordings)
  }

  /// A state's visible path as `PUT .../state` takes it.
  private static func path(in value: JSONValue?) -> [PathEntry]? {
    guard let list = value?.arrayValue, !list.isEmpty else { return nil }
    var entries: [PathEntry] = []
    for element in list {
      guard let route = element["route"]?.stringValue,
        let name = element["presentation"]?.stringValue,
        let presentation = Presentation(rawValue: name)
      else { return nil }
      entries.append(
        PathEntry(
          route: route, params: element["params"]?.objectValue ?? JSONObject(),
          presentation: presentation))
    }
    return entries
  }
}

import Logging
import MicroHTTPServer
import NavJSON
import NavStateEngine
import NavigationCore

extension NavStateService {
  func listGraphs() -> HTTPResponse {
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

  func graph(named name: String) -> HTTPResponse {
    guard let graph = store.graphs[name] else {
      return APIProblem(
        status: 404, code: "unknown_graph", title: "Unknown graph",
        detail: "no graph named \(quoted(name)) is loaded"
      ).response
    }
    var writer = JSONWriter(capacity: 4096)
    StateJSON.writeGraph(graph, into: &writer)
    return Self.json(200, writer.bytes)
  }
}

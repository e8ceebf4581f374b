import NavJSON
import NavigationCore
import Testing

@testable import NavStateWire

/// The wire module on its own: what it writes for a state, an event, a graph and a migration
/// report, and how it frames an event for a stream, with no session, store or server.
@Suite struct WireFormatTests {
  let graph: RouteGraph = {
    do {
      return try BuiltInGraphs.load()[0]
    } catch {
      preconditionFailure("the built-in graphs load: \(error)")
    }
  }()

  @Test("a state is written with its documented members, in order")
  func stateMembers() throws {
    var (state, _) = try NavigationState.start(graph: graph)
    _ = try state.apply(.push(RouteRequest(route: "detail", params: ["id": .int(3)])))
    let times = SessionTimes(
      createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 1_000),
      expiresAt: Timestamp(milliseconds: 2_000))
    var writer = JSONWriter(capacity: 512)
    StateJSON.writeState(state, id: "s1", times: times, into: &writer)
    let json = try JSONParser.parse(writer.bytes)
    #expect(
      json.objectValue?.keys == [
        "id", "graph", "graphVersion", "version", "createdAt", "updatedAt", "expiresAt", "shares",
        "active", "root", "path", "context", "allowed",
      ])
    #expect(json["shares"] == [])
    #expect(json["updatedAt"] == "1970-01-01T00:00:01.000Z")
    #expect(json["path"]?[1]?["params"] == ["id": 3])
    #expect(json["active"] == json["path"]?[1]?["id"])
  }

  @Test("every built-in graph written and read back is the same graph")
  func graphRoundTrip() throws {
    for graph in try BuiltInGraphs.load() {
      var writer = JSONWriter(capacity: 4096)
      GraphJSON.write(graph, into: &writer)
      let again = try RouteGraph.decode(writer.bytes, source: "written")
      var rewritten = JSONWriter(capacity: 4096)
      GraphJSON.write(again, into: &rewritten)
      #expect(rewritten.bytes == writer.bytes)
      #expect(again.routes.map(\.name) == graph.routes.map(\.name))
      #expect(again.routes.map(\.next) == graph.routes.map(\.next))
    }
  }

  @Test("a migration report lists stopped routes by name")
  func report() {
    var report = MigrationReport()
    report.add(MigrationSummary(outcome: .migrated, stopped: ["b": 2, "a": 1]))
    report.add(MigrationSummary(outcome: .unchanged))
    #expect(
      String(decoding: GraphJSON.encode(report), as: UTF8.self)
        == #"{"sessions":2,"unchanged":1,"migrated":1,"stopped":{"a":1,"b":2},"restarted":0}"#)
  }

  @Test("an event is framed as id, event and one data line, then a blank line")
  func framing() {
    let frame = EventStreamFraming.event(
      id: 42, type: "coordinator.started", json: Array("{}".utf8))
    #expect(
      String(decoding: frame, as: UTF8.self)
        == "id: 42\nevent: coordinator.started\ndata: {}\n\n")
    #expect(String(decoding: EventStreamFraming.heartbeat, as: UTF8.self) == ": heartbeat\n\n")
  }
}

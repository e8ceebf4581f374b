// Micro-benchmarks of the navigation core and of state encoding, in ns per operation.
// Run: swift run -c release core-benchmarks [--smoke]
import Foundation
import NavJSON
import NavStateAPI
import NavStateEngine
import NavStateWire
import NavigationCore

#if canImport(Glibc)
  import Glibc
#endif

func nanoseconds() -> UInt64 {
  var spec = timespec()
  clock_gettime(CLOCK_MONOTONIC, &spec)
  return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
}

/// Runs `body` `iterations` times, five rounds, and reports the best round's ns per iteration.
func measure(_ name: String, iterations: Int, _ body: () throws -> Void) rethrows {
  var best = UInt64.max
  for _ in 0..<5 {
    let start = nanoseconds()
    for _ in 0..<iterations { try body() }
    best = min(best, nanoseconds() - start)
  }
  let perOp = Double(best) / Double(iterations)
  print("\(padded(name, 44)) \(padded(String(Int(perOp.rounded())), 10, left: true)) ns/op")
}

func padded(_ text: String, _ width: Int, left: Bool = false) -> String {
  let fill = String(repeating: " ", count: max(0, width - text.count))
  return left ? fill + text : text + fill
}

let smoke = CommandLine.arguments.contains("--smoke")
let scale = smoke ? 1 : 100
let graphs = try BuiltInGraphs.load()
guard let demo = graphs.first(where: { $0.name == "demo" }) else { exit(1) }

func detail(_ id: Int) -> RouteRequest { RouteRequest(route: "detail", params: ["id": .int(id)]) }

// A 4-deep tree: master, detail, detail, then push+pop a fourth.
var (state, _) = try NavigationState.start(graph: demo)
_ = try state.apply(.push(detail(1)))
_ = try state.apply(.push(detail(2)))
try measure("push+pop on a 4-deep tree", iterations: 1000 * scale) {
  _ = try state.apply(.push(detail(3)))
  _ = try state.apply(.pop())
}

func path(_ ids: [Int]) -> [PathEntry] {
  [PathEntry(route: "master", presentation: .root)]
    + ids.map { PathEntry(route: "detail", params: ["id": .int($0)], presentation: .push) }
}
let pathA = path(Array(1...9))
let pathB = path(Array(1...4) + Array(100...104))
_ = try state.apply(.setPath(pathA))
var flip = false
try measure("reconcile of a 10-deep path (5 kept, 5 new)", iterations: 200 * scale) {
  flip.toggle()
  _ = try state.apply(.setPath(flip ? pathB : pathA))
}

var (small, _) = try NavigationState.start(graph: demo)
_ = try small.apply(.push(detail(1)))
_ = try small.apply(.push(detail(2)))
_ = try small.apply(.present(RouteRequest(route: "settings"), style: .sheet))
let times = SessionTimes(
  createdAt: .now(), updatedAt: .now(), expiresAt: Timestamp.now().adding(seconds: 1800))
var bytes = 0
measure("encode a 4-deep state as JSON", iterations: 1000 * scale) {
  var writer = JSONWriter(capacity: 1024)
  StateJSON.writeState(small, id: "abcdefghijklmnopqrstuv", times: times, into: &writer)
  bytes = writer.bytes.count
}
print("(a 4-deep state is \(bytes) bytes of JSON)")

let body = Array(#"{"route":"detail","params":{"id":42},"singleTop":false}"#.utf8)
try measure("decode a push body into a command", iterations: 1000 * scale) {
  _ = try CommandDecoder.command("push", body: try JSONParser.parse(body))
}

// Moving the 4-deep state to version 2 of its graph: a dry run runs once per live session, so
// its ns per session times the sessions is what a `?dryRun=true` costs.
func demoVersion2(detail: String = "detail", settings: Bool = true, migrate: String = "{}") throws
  -> RouteGraph
{
  let next = #""\#(detail)""# + (settings ? #","settings""# : "")
  var routes = [
    #"{"name":"master","path":"/master","next":[\#(next)]}"#,
    #"{"name":"\#(detail)","path":"/detail/{id}","params":{"id":{"type":"int","required":true}},"next":[\#(next)]}"#,
  ]
  if settings {
    routes.append(#"{"name":"settings","presentation":"sheet","presentations":["sheet"]}"#)
  }
  let document =
    #"{"name":"demo","version":2,"root":"master","migrate":\#(migrate),"routes":[\#(routes.joined(separator: ","))]}"#
  return try RouteGraph.decode(Array(document.utf8), source: "bench")
}
let sameV2 = try demoVersion2()
let renamedV2 = try demoVersion2(detail: "item", migrate: #"{"renamed":{"detail":"item"}}"#)
let withoutSettings = try demoVersion2(
  settings: false, migrate: #"{"removed":{"settings":null}}"#)
try measure("dry run, 4-deep session unchanged", iterations: 1000 * scale) {
  _ = try small.migrationSummary(through: [sameV2])
}
try measure("dry run, 4-deep session with a renamed route", iterations: 1000 * scale) {
  _ = try small.migrationSummary(through: [renamedV2])
}
try measure("dry run, 4-deep session losing its sheet", iterations: 1000 * scale) {
  _ = try small.migrationSummary(through: [withoutSettings])
}
try measure("migrate, 4-deep session unchanged", iterations: 1000 * scale) {
  _ = try small.migrated(to: sameV2)
}
try measure("migrate, 4-deep session with a renamed route", iterations: 1000 * scale) {
  _ = try small.migrated(to: renamedV2)
}

// A dry run and a migration of every live session of a store, as `PUT ...?dryRun=true` and
// `POST .../migrate` do them: 100,000 sessions (1,000 with --smoke), each on a detail with the
// settings sheet over it; version 2 drops the sheet (each session loses one coordinator).
func liveSessionsTimes() throws {
  let sessions = smoke ? 1000 : 100_000
  var configuration = StoreConfiguration()
  configuration.maxSessions = sessions
  configuration.maxSessionsPerClient = sessions
  configuration.maxMemoryBytes = 4 << 30
  let store = SessionStore(graphs: graphs, defaultGraph: "demo", configuration: configuration)
  for index in 0..<sessions {
    let created = try store.createSession(graph: nil, root: nil, client: "bench")
    let record = created.record
    _ = try store.apply(
      .push(detail(index)), to: record, precondition: nil, minimal: true)
    _ = try store.apply(
      .present(RouteRequest(route: "settings"), style: .sheet), to: record, precondition: nil,
      minimal: true)
  }
  let start = nanoseconds()
  let report = store.dryRun(withoutSettings)
  let dryRun = nanoseconds() - start
  try store.load(GraphCatalog.Version(graph: withoutSettings, source: []))
  let migrateStart = nanoseconds()
  let moved = try store.migrateAll(graph: "demo")
  let migration = nanoseconds() - migrateStart
  precondition(report.sessions == sessions && moved.migrated == sessions)
  for (name, time) in [("dry run", dryRun), ("migration", migration)] {
    let label = "\(name) of \(sessions) live sessions"
    print("\(padded(label, 44)) \(padded(String(time / 1_000_000), 10, left: true)) ms")
  }
}
try liveSessionsTimes()
try historyTimes(graphs: graphs, smoke: smoke)

// The same state through Foundation's Codable encoder, to justify the hand-written writer.
struct CodableNode: Encodable {
  var id: String
  var route: String
  var params: [String: Int]
  var presentation: String
  var children: [CodableNode]
}
struct CodablePathItem: Encodable {
  var id: String
  var route: String
  var params: [String: Int]
  var presentation: String
}
struct CodableState: Encodable {
  var id, graph: String
  var version: Int
  var createdAt, updatedAt, expiresAt: String
  var active: String
  var root: CodableNode
  var path: [CodablePathItem]
}
func intParams(_ params: Params) -> [String: Int] {
  var result: [String: Int] = [:]
  for (name, value) in params { result[name] = if case .int(let v) = value { v } else { 0 } }
  return result
}
func codable(_ state: NavigationState) -> CodableState {
  func node(_ id: CoordinatorID) -> CodableNode {
    let coordinator = state[id]!
    return CodableNode(
      id: id.description, route: coordinator.route,
      params: intParams(coordinator.params),
      presentation: coordinator.presentation.rawValue, children: coordinator.children.map(node))
  }
  let stamp = times.createdAt.rfc3339
  return CodableState(
    id: "abcdefghijklmnopqrstuv", graph: state.graph.name, version: state.version,
    createdAt: stamp, updatedAt: stamp, expiresAt: stamp, active: state.activeID!.description,
    root: node(state.rootID!),
    path: state.visiblePath.map {
      let c = state[$0]!
      return CodablePathItem(
        id: $0.description, route: c.route,
        params: intParams(c.params),
        presentation: c.presentation.rawValue)
    })
}
let encoder = JSONEncoder()
try measure("encode a 4-deep state with Foundation JSONEncoder", iterations: 100 * scale) {
  _ = try encoder.encode(codable(small))
}

import NavJSON
import Testing

@testable import NavigationCore

/// The built-in demo graph (docs/graphs.md), loaded once through the public loader.
let demoGraph: RouteGraph = {
  do {
    return try BuiltInGraphs.load()[0]
  } catch {
    preconditionFailure("the demo graph must load: \(error)")
  }
}()

/// `c<number>`, the way the service names coordinators.
func c(_ number: Int) -> CoordinatorID { CoordinatorID(number) }

func detail(_ id: Int) -> RouteRequest { RouteRequest(route: "detail", params: ["id": .int(id)]) }

func route(_ name: String, _ params: JSONObject = [:]) -> RouteRequest {
  RouteRequest(route: name, params: params)
}

func entry(_ route: String, _ params: JSONObject, _ presentation: Presentation) -> PathEntry {
  PathEntry(route: route, params: params, presentation: presentation)
}

func entry(_ route: String, _ presentation: Presentation) -> PathEntry {
  PathEntry(route: route, presentation: presentation)
}

/// Everything an operation may change. Two equal snapshots mean nothing happened.
struct Snapshot: Equatable, CustomStringConvertible {
  var coordinators: CoordinatorTable
  var rootID: CoordinatorID?
  var version: Int
  var lastSeq: Int
  var lastIssuedID: Int

  init(_ state: NavigationState) {
    coordinators = state.coordinators
    rootID = state.rootID
    version = state.version
    lastSeq = state.lastSeq
    lastIssuedID = state.lastIssuedID
  }

  var description: String {
    let ids = coordinators.keys.sorted().map(\.description).joined(separator: ",")
    return
      "root \(rootID?.description ?? "-") v\(version) seq \(lastSeq) last c\(lastIssuedID) [\(ids)]"
  }
}

/// Applies `command` to `state`, expecting success, and checks after it:
/// the shape rules (docs/behaviour.md section 2) and the event rules of section 3 (see `checkEventRules`).
@discardableResult
func applyChecked(
  _ command: Command, to state: inout NavigationState,
  sourceLocation: SourceLocation = #_sourceLocation
) throws -> [NavigationEvent] {
  let before = state
  let events = try state.apply(command)
  #expect(state.invariantViolations() == [], sourceLocation: sourceLocation)
  var isBatch = false
  if case .batch = command { isBatch = true }
  checkEventRules(
    events, before: before, after: state, orderedByOperation: !isBatch,
    sourceLocation: sourceLocation)
  return events
}

/// Expects `command` to be refused with `code` (and, for a batch, `opIndex`), and the state to be
/// exactly as it was: same coordinators, root, version, last seq and last issued id.
@discardableResult
func expectRefusal(
  _ command: Command, on state: inout NavigationState, _ code: NavigationError.Code,
  opIndex: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
) -> NavigationError? {
  let before = Snapshot(state)
  var refusal: NavigationError?
  do {
    let events = try state.apply(command)
    Issue.record(
      "\(command) was applied (\(describe(events))); expected \(code.rawValue)",
      sourceLocation: sourceLocation)
  } catch {
    refusal = error
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.opIndex == opIndex, "\(error)", sourceLocation: sourceLocation)
    #expect(!error.detail.isEmpty, sourceLocation: sourceLocation)
  }
  #expect(
    Snapshot(state) == before, "a refused operation changed the state",
    sourceLocation: sourceLocation)
  return refusal
}

/// The event rules of docs/behaviour.md sections 3, 6.5 and 7 for one applied operation, as a list of violations:
/// - an operation with no events changed nothing (not even the version);
/// - otherwise the version went up by exactly one and every event carries it;
/// - seq counts up by one from the previous last seq;
/// - started ids are new (above every id issued before, increasing), stopped ids were live;
/// - live count = before + started - stopped;
/// - a stopped coordinator's stop comes before its parent's (children first);
/// - within one operation (not a batch) every stopped event comes before every started one.
func eventRuleViolations(
  _ events: [NavigationEvent], before: NavigationState, after: NavigationState,
  orderedByOperation: Bool
) -> [String] {
  guard !events.isEmpty else {
    return Snapshot(after) == Snapshot(before)
      ? [] : ["an operation without events changed the state: \(before) -> \(after)"]
  }
  var problems: [String] = []
  if after.version != before.version + 1 {
    problems.append("version went from \(before.version) to \(after.version)")
  }
  if let stray = events.first(where: { $0.version != after.version }) {
    problems.append("event \(stray.seq) has version \(stray.version), not \(after.version)")
  }
  let seqs = events.map(\.seq)
  if seqs != Array(before.lastSeq + 1...before.lastSeq + events.count) {
    problems.append("seqs \(seqs) do not follow \(before.lastSeq)")
  }
  if after.lastSeq != before.lastSeq + events.count {
    problems.append("lastSeq is \(after.lastSeq) after \(events.count) events")
  }

  var started: [CoordinatorID] = []
  var parents: [CoordinatorID: CoordinatorID] = [:]
  var stoppedAt: [CoordinatorID: Int] = [:]
  for (index, event) in events.enumerated() {
    switch event.kind {
    case .started(let id, _, _, _, let parent):
      if id.number <= (started.last?.number ?? before.lastIssuedID) {
        problems.append("\(id) is not a new id")
      }
      started.append(id)
      parents[id] = parent
    case .stopped(let id, _, _):
      if before[id] == nil, !started.contains(id) {
        problems.append("\(id) stopped but was not live")
      }
      if stoppedAt[id] != nil { problems.append("\(id) stopped twice") }
      stoppedAt[id] = index
    default:
      break
    }
  }
  for (id, index) in stoppedAt {
    guard let parent = before[id]?.parent ?? parents[id], let parentIndex = stoppedAt[parent]
    else { continue }
    if parentIndex < index { problems.append("\(parent) stopped before its child \(id)") }
  }
  if after.liveCount != before.liveCount + started.count - stoppedAt.count {
    problems.append(
      "live \(before.liveCount) + \(started.count) started - \(stoppedAt.count) stopped"
        + " != \(after.liveCount)")
  }
  if after.lastIssuedID != (started.last?.number ?? before.lastIssuedID) {
    problems.append("lastIssuedID is c\(after.lastIssuedID)")
  }
  if orderedByOperation {
    let lastStop = events.lastIndex { if case .stopped = $0.kind { true } else { false } }
    let firstStart = events.firstIndex { if case .started = $0.kind { true } else { false } }
    if let lastStop, let firstStart, firstStart < lastStop {
      problems.append("a started event came before a stopped one")
    }
  }
  return problems
}

/// Expects no violation of the event rules (see `eventRuleViolations`).
func checkEventRules(
  _ events: [NavigationEvent], before: NavigationState, after: NavigationState,
  orderedByOperation: Bool, sourceLocation: SourceLocation = #_sourceLocation
) {
  let problems = eventRuleViolations(
    events, before: before, after: after, orderedByOperation: orderedByOperation)
  #expect(problems == [], "\(describe(events))", sourceLocation: sourceLocation)
}

/// A session on the demo graph for one test; every operation goes through the checked helpers.
struct Session {
  var state: NavigationState
  var startEvents: [NavigationEvent]

  init(root: String = "master", _ params: JSONObject = [:], limits: NavigationLimits = .init())
    throws
  {
    (state, startEvents) = try NavigationState.start(
      graph: demoGraph, root: RouteRequest(route: root, params: params), limits: limits)
    #expect(state.invariantViolations() == [])
  }

  @discardableResult
  mutating func apply(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> [NavigationEvent]
  {
    try applyChecked(command, to: &state, sourceLocation: sourceLocation)
  }

  /// Applies `command` and returns its events in the compact form of `describe`.
  mutating func events(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> [String]
  {
    describe(try apply(command, sourceLocation: sourceLocation))
  }

  @discardableResult
  mutating func refuse(
    _ command: Command, _ code: NavigationError.Code, opIndex: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> NavigationError? {
    expectRefusal(command, on: &state, code, opIndex: opIndex, sourceLocation: sourceLocation)
  }

  /// The routes of the visible path, root first.
  var routes: [String] { state.visiblePath.compactMap { state[$0]?.route } }
  /// The ids of the visible path as `c1`, `c2`, ...
  var path: [String] { state.visiblePath.map(\.description) }
  var presentations: [Presentation] {
    state.visiblePath.compactMap { state[$0]?.presentation }
  }
  var active: Coordinator? { state.activeID.flatMap { state[$0] } }
  subscript(number: Int) -> Coordinator? { state[c(number)] }
}

/// Compact descriptions of events, for exact comparisons.
func describe(_ events: [NavigationEvent]) -> [String] {
  events.map { event in
    switch event.kind {
    case .started(let id, let route, _, let presentation, let parent):
      "started \(id) \(route) \(presentation.rawValue) under \(parent?.description ?? "-")"
    case .stopped(let id, let route, let reason): "stopped \(id) \(route) \(reason.rawValue)"
    case .resumed(let id, let result): "resumed \(id) \(result.encodedString)"
    case .tabSelected(let container, let tab, let route): "tab \(container) \(tab) \(route)"
    case .sessionEnded(let reason): "ended \(reason.rawValue)"
    case .sessionMigrated(let from, let to): "migrated \(from) -> \(to)"
    case .sessionRestored(let from): "restored from \(from)"
    case .contextChanged(let context): "context \(context.json.encodedString)"
    case .navigationRedirected(let route, let redirect, let coordinator):
      "redirected \(route) to \(redirect) \(coordinator)"
    case .pendingApplied(let route): "applied \(route)"
    case .pendingDropped(let route, let reason, let code):
      "dropped \(route) \(reason.rawValue)\(code.map { " \($0.rawValue)" } ?? "")"
    case .leaveGuardChanged(let id, let reason): "guard \(id) \(reason ?? "-")"
    case .shareCreated(let id, let mode, let label): "share \(id) \(mode.rawValue) \(label)"
    case .shareRevoked(let id, let reason): "unshare \(id) \(reason.rawValue)"
    }
  }
}

/// Loads a graph document given as text.
func loadGraph(_ json: String, source: String = "test.json") throws(GraphError) -> RouteGraph {
  try RouteGraph.decode(Array(json.utf8), source: source)
}

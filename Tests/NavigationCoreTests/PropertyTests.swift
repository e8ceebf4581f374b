import Foundation
import NavJSON
import Testing

@testable import NavigationCore

// Random operation sequences over the demo graph, valid and invalid, checked after every op.
// A failure prints its seed and the shortest failing sequence the shrinker finds. Replay one seed
// with NAV_PROPERTY_SEED=<seed>; run more with NAV_PROPERTY_SEQUENCES=<count>.

/// SplitMix64: small, fast and seedable. Bounded numbers are taken by modulo, not through the
/// standard library's `random(in:using:)`, so a seed replays the same on every toolchain.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }

  mutating func int(_ range: ClosedRange<Int>) -> Int {
    range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
  }

  mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }

  mutating func pick<Element>(_ items: [Element]) -> Element { items[int(0...items.count - 1)] }
}

/// Random commands, biased towards ones that apply (routes the active screen may show, ids that
/// exist) but with plenty that are refused: bad params, stopped and never-issued ids, bad links.
struct CommandGenerator {
  var random: SplitMix64
  static let roots = ["master", "tabs", "login", "scene1"]
  static let routeNames = demoGraph.routes.map(\.name)
  /// For each route and presentation, the routes it may show that way.
  static let candidates: [String: [Presentation: [String]]] = {
    var table: [String: [Presentation: [String]]] = [:]
    for parent in demoGraph.routes {
      for presentation in Presentation.allCases {
        table[parent.name, default: [:]][presentation] = demoGraph.routes.filter {
          parent.allowsNext($0.name) && $0.presentations.contains(presentation)
        }.map(\.name)
      }
    }
    return table
  }()
  static let odd = [
    "/nope", "master", "myapp://detail/4", "/master/detail/x", "/master/bad%zz",
    "/tabs/search?query=x", "https://h", "/master/detail/1?id=one", "/scene1/scene2/a/scene3/b",
    "/", "",
  ]

  init(seed: UInt64) { random = SplitMix64(seed: seed) }

  mutating func params(for route: String) -> JSONObject {
    var params = JSONObject()
    switch route {
    case "detail": params["id"] = .int(random.int(0...3))
    case "scene2", "scene3": params["text"] = .string(random.pick(["a", "b"]))
    case "search" where random.chance(3): params["query"] = "x"
    default: break
    }
    if random.chance(25) { params["bogus"] = 1 }
    if random.chance(25) { params["id"] = "not a number" }
    if random.chance(30) { params = [:] }
    return params
  }

  /// Mostly a route the coordinator showing `from` may show with `presentation`; sometimes any
  /// route, or one that does not exist.
  mutating func request(from: String?, as presentation: Presentation) -> RouteRequest {
    var name = random.pick(Self.routeNames)
    if !random.chance(5), let from, let candidates = Self.candidates[from]?[presentation],
      !candidates.isEmpty
    {
      name = random.pick(candidates)
    }
    if random.chance(40) { name = "nowhere" }
    return RouteRequest(route: name, params: params(for: name))
  }

  /// A live id most of the time; else a stopped one, one never issued, or c0.
  mutating func id(in state: NavigationState) -> CoordinatorID {
    let live = state.coordinators.keys.sorted()
    if !live.isEmpty, random.int(1...3) > 1 { return random.pick(live) }
    return c(random.int(0...state.lastIssuedID + 2))
  }

  mutating func result() -> JSONValue? {
    random.pick([nil, nil, .null, "done", ["picked": 7], [1, true]])
  }

  mutating func pathEntries(in state: NavigationState) -> [PathEntry] {
    var entries: [PathEntry] = []
    if random.chance(2) {
      // Keep part of what is shown, so that common prefixes are exercised.
      let shown = state.visiblePath.compactMap { state[$0] }
      for node in shown.prefix(random.int(0...shown.count)) {
        entries.append(
          PathEntry(
            route: node.route,
            params: JSONObject(node.params.map { .init(key: $0, value: $1.json) }),
            presentation: node.presentation))
      }
    }
    if entries.isEmpty, !random.chance(30) {
      entries.append(PathEntry(route: random.pick(Self.roots), presentation: .root))
    }
    for _ in 0..<random.int(0...4) {
      let last = entries.last?.route
      if let last, let tabs = demoGraph.route(named: last)?.tabs, random.chance(2) {
        entries.append(PathEntry(route: random.pick(tabs), presentation: .tab))
        continue
      }
      let wanted = random.pick([Presentation.push, .push, .sheet, .fullScreenCover])
      let request = request(from: last, as: wanted)
      let presentation =
        random.chance(5)
        ? random.pick(Presentation.allCases)
        : (demoGraph.route(named: request.route)?.presentation ?? .push)
      entries.append(
        PathEntry(route: request.route, params: request.params, presentation: presentation))
    }
    return entries
  }

  mutating func deepLink(in state: NavigationState) -> String {
    if random.chance(6) { return random.pick(Self.odd) }
    var segments: [String] = []
    for entry in pathEntries(in: state) {
      guard let route = demoGraph.route(named: entry.route) else {
        segments.append(entry.route)
        continue
      }
      for segment in route.segments {
        switch segment {
        case .literal(let text): segments.append(text)
        case .param(let name):
          let value = entry.params[name]
          segments.append(
            value?.stringValue ?? value.map { String(decoding: $0.encoded, as: UTF8.self) } ?? "x")
        }
      }
    }
    let path = segments.joined(separator: "/")
    let query = random.chance(5) ? "?query=q%20\(random.int(0...2))&id=\(random.int(0...3))" : ""
    return random.pick(["/", "myapp://", "https://example.com/"]) + path + query
  }

  mutating func command(in state: NavigationState, nested: Bool = false) -> Command {
    let active = state.activeID.flatMap { state[$0] }?.route
    switch random.int(0...16) {
    case 0, 1, 2, 3:
      let target = random.chance(5) ? id(in: state) : nil
      let from = target.flatMap { state[$0] }?.route ?? active
      return .push(request(from: from, as: .push), target: target, singleTop: random.chance(4))
    case 4:
      let count = random.int(0...3)
      let to = id(in: state)
      let amount = random.pick([PopAmount.count(count), .count(1), .to(to), .toRoot])
      return .pop(amount, result: result())
    case 5, 6, 7:
      let style: ModalStyle = random.chance(3) ? .fullScreenCover : .sheet
      return .present(
        request(from: active, as: style == .sheet ? .sheet : .fullScreenCover), style: style)
    case 8:
      let modal = id(in: state)
      let target = random.pick([DismissTarget.current, .coordinator(modal), .all])
      return .dismiss(target, result: result())
    case 9: return .back(result: result())
    case 10:
      let top = state.activeID.flatMap { state[$0] }
      let parent = top?.parent.flatMap { state[$0] }?.route
      return .replace(request(from: parent, as: top?.presentation ?? .push))
    case 11:
      let selector =
        random.chance(2)
        ? TabSelector.index(random.int(-1...3)) : .route(random.pick(Self.routeNames))
      return .selectTab(selector, container: random.chance(3) ? id(in: state) : nil)
    case 12: return .teardown(id(in: state))
    case 13: return .deepLink(deepLink(in: state))
    case 14: return .setPath(pathEntries(in: state))
    default:
      if nested { return random.chance(10) ? .batch([]) : .back() }
      var ops: [Command] = []
      var scratch = state
      for _ in 0..<random.int(0...4) {
        let op = command(in: scratch, nested: true)
        ops.append(op)
        _ = try? scratch.apply(op)
      }
      return .batch(ops)
    }
  }
}

/// One session under test: applies commands and checks every rule after each one.
struct SequenceChecker {
  var state: NavigationState
  /// Started minus stopped, counted over every event of the session so far.
  var live: Int
  var lastSeq: Int
  var startProblem: String?

  init(root: String, limit: Int) {
    do {
      let (state, events) = try NavigationState.start(
        graph: demoGraph, root: RouteRequest(route: root),
        limits: NavigationLimits(maxCoordinators: limit))
      self.state = state
      live = 0
      lastSeq = 0
      if let problem = record(events) { startProblem = problem }
    } catch {
      preconditionFailure("start at \(root) failed: \(error)")
    }
  }

  /// Counts events into the whole-history tallies; a problem when seq does not go up by one.
  mutating func record(_ events: [NavigationEvent]) -> String? {
    for event in events {
      guard event.seq == lastSeq + 1 else { return "seq \(event.seq) after \(lastSeq)" }
      lastSeq = event.seq
      switch event.kind {
      case .started: live += 1
      case .stopped: live -= 1
      default: break
      }
    }
    return nil
  }

  /// Applies one command; a description of the first broken rule, or nil.
  mutating func step(_ command: Command) -> String? {
    let before = state
    let events: [NavigationEvent]
    do {
      events = try state.apply(command)
    } catch {
      if Snapshot(state) != Snapshot(before) { return "refused (\(error)) but changed the state" }
      if case .batch(let ops) = command, let problem = refusedOneByOne(ops, from: before, error) {
        return problem
      }
      return nil  // the state is the one already checked
    }
    var isBatch = false
    if case .batch = command { isBatch = true }
    let problems = eventRuleViolations(
      events, before: before, after: state, orderedByOperation: !isBatch)
    if !problems.isEmpty { return "event rules: \(problems) in \(describe(events))" }
    if let problem = record(events) { return problem }
    if case .batch(let ops) = command, let problem = oneByOne(ops, from: before, events) {
      return problem
    }
    // Without events the rules above checked that nothing changed.
    guard !events.isEmpty else { return nil }
    let violations = state.invariantViolations()
    if !violations.isEmpty { return "invariants: \(violations)" }
    if live != state.liveCount { return "started - stopped = \(live), live = \(state.liveCount)" }
    return nil
  }

  /// An applied batch ends where its ops applied one by one end, with the same events in order
  /// (versions differ by design: the batch bumps once).
  func oneByOne(_ ops: [Command], from start: NavigationState, _ events: [NavigationEvent])
    -> String?
  {
    var single = start
    var kinds: [NavigationEvent.Kind] = []
    for (index, op) in ops.enumerated() {
      do {
        kinds += try single.apply(op).map(\.kind)
      } catch {
        return "op \(index) of an applied batch is refused alone: \(error)"
      }
    }
    if single.coordinators != state.coordinators || single.rootID != state.rootID
      || single.lastIssuedID != state.lastIssuedID
    {
      return "the batch and its ops one by one end in different trees"
    }
    if kinds != events.map(\.kind) { return "the batch and its ops one by one differ in events" }
    return nil
  }

  /// A refused batch names the op that is refused when the ops are applied one by one.
  func refusedOneByOne(_ ops: [Command], from start: NavigationState, _ refusal: NavigationError)
    -> String?
  {
    guard let index = refusal.opIndex, ops.indices.contains(index) else {
      return "a refused batch names no op: \(refusal)"
    }
    if case .batch = ops[index] { return nil }  // nested batches are refused only inside one
    var single = start
    for op in ops[..<index] {
      guard (try? single.apply(op)) != nil else {
        return "op before \(index) of a batch refused at \(index) is refused alone"
      }
    }
    do {
      _ = try single.apply(ops[index])
      return "op \(index) refused in the batch (\(refusal.code)) applies alone"
    } catch {
      return error.code == refusal.code
        ? nil : "op \(index): \(refusal.code) vs \(error.code) alone"
    }
  }

  /// Ends the session: everything stops, session.ended comes last, nothing leaks.
  mutating func finish() -> String? {
    let before = state
    let events = state.end(reason: .deleted)
    let problems = eventRuleViolations(
      events, before: before, after: state, orderedByOperation: true)
    if !problems.isEmpty { return "end: \(problems)" }
    if let problem = record(events) { return "end: \(problem)" }
    guard case .sessionEnded(.deleted)? = events.last?.kind else {
      return "end: the last event is not session.ended"
    }
    let stops = events.filter {
      if case .stopped(_, _, .sessionEnded) = $0.kind { true } else { false }
    }
    if stops.count != before.liveCount || stops.count != events.count - 1 {
      return "end: \(stops.count) stops for \(before.liveCount) live coordinators"
    }
    if live != 0 || state.liveCount != 0 { return "end: \(live) coordinators leaked" }
    return nil
  }
}

/// A command in a short readable form, for failure reports.
func brief(_ command: Command) -> String {
  func show(_ request: RouteRequest) -> String {
    request.params.isEmpty
      ? request.route : "\(request.route) \(JSONValue.object(request.params).encodedString)"
  }
  func show(_ result: JSONValue?) -> String { result.map { " result \($0.encodedString)" } ?? "" }
  switch command {
  case .push(let request, let target, let singleTop):
    return "push \(show(request))\(target.map { " target \($0)" } ?? "")"
      + (singleTop ? " singleTop" : "")
  case .pop(let amount, let result):
    switch amount {
    case .count(let count): return "pop \(count)\(show(result))"
    case .to(let id): return "pop to \(id)\(show(result))"
    case .toRoot: return "pop toRoot\(show(result))"
    }
  case .present(let request, let style): return "present \(show(request)) \(style.rawValue)"
  case .dismiss(let target, let result):
    switch target {
    case .current: return "dismiss\(show(result))"
    case .coordinator(let id): return "dismiss \(id)\(show(result))"
    case .all: return "dismiss all\(show(result))"
    }
  case .back(let result): return "back\(show(result))"
  case .replace(let request): return "replace \(show(request))"
  case .selectTab(let selector, let container):
    let tab: String
    switch selector {
    case .index(let index): tab = "\(index)"
    case .route(let name): tab = name
    }
    return "selectTab \(tab)\(container.map { " in \($0)" } ?? "")"
  case .restore(let version, let entries):
    return "restore \(version) to \(entries.map(\.route).joined(separator: "/"))"
  case .setPath(let entries):
    let shown = entries.map { entry in
      let params = entry.params.isEmpty ? "" : JSONValue.object(entry.params).encodedString
      return "\(entry.route)\(params)(\(entry.presentation.rawValue))"
    }
    return "setPath [\(shown.joined(separator: ", "))]"
  case .deepLink(let url): return "deepLink \(url)"
  case .teardown(let id): return "teardown \(id)"
  case .batch(let ops): return "batch [\(ops.map(brief).joined(separator: "; "))]"
  case .setContext(let context): return "setContext \(context.json.encodedString)"
  case .setLeaveGuard(let id, let reason): return "leaveGuard \(id) \(reason ?? "-")"
  case .createShare(let share): return "createShare \(share.id) \(share.mode.rawValue)"
  case .revokeShare(let id, let reason): return "revokeShare \(id) \(reason.rawValue)"
  case .discarding(let command): return "discard \(brief(command))"
  }
}

/// Where one seeded sequence starts.
struct SequenceSetup: CustomStringConvertible {
  var seed: UInt64
  var root: String
  var limit: Int
  var description: String { "seed \(seed) (root \(root), limit \(limit))" }
}

struct SequenceFailure: CustomStringConvertible {
  var step: Int
  var command: Command?
  var problem: String
  var description: String {
    "step \(step)\(command.map { ": \(brief($0))" } ?? " (end of session)"): \(problem)"
  }
}

/// Replays `commands` from a fresh session; the first broken rule, or nil.
func replay(_ setup: SequenceSetup, _ commands: [Command]) -> SequenceFailure? {
  var checker = SequenceChecker(root: setup.root, limit: setup.limit)
  if let problem = checker.startProblem {
    return SequenceFailure(step: -1, command: nil, problem: problem)
  }
  for (step, command) in commands.enumerated() {
    if let problem = checker.step(command) {
      return SequenceFailure(step: step, command: command, problem: problem)
    }
  }
  if let problem = checker.finish() {
    return SequenceFailure(step: commands.count, command: nil, problem: problem)
  }
  return nil
}

/// Greedy delta debugging: removes chunks of ops, then single ops, while the sequence still
/// fails. Returns the shortest failing sequence found.
func shrink(_ commands: [Command], stillFails: ([Command]) -> Bool) -> [Command] {
  var current = commands
  var chunk = max(1, current.count / 2)
  while true {
    var index = 0
    var removedAny = false
    while index < current.count {
      var candidate = current
      candidate.removeSubrange(index..<min(index + chunk, candidate.count))
      if stillFails(candidate) {
        current = candidate
        removedAny = true
      } else {
        index += chunk
      }
    }
    if chunk == 1 && !removedAny { break }
    if !removedAny { chunk = max(1, chunk / 2) }
  }
  // A failing batch may fail with fewer ops inside it too.
  for position in current.indices {
    guard case .batch(let ops) = current[position] else { continue }
    let smaller = shrink(ops) { candidate in
      var attempt = current
      attempt[position] = .batch(candidate)
      return stillFails(attempt)
    }
    current[position] = .batch(smaller)
  }
  return current
}

/// Generates and checks one seeded sequence of `length` ops in one pass; on failure, shrinks it.
func runSequence(seed: UInt64, length: Int) -> String? {
  var generator = CommandGenerator(seed: seed)
  let setup = SequenceSetup(
    seed: seed, root: generator.random.pick(CommandGenerator.roots),
    limit: generator.random.chance(4) ? generator.random.int(4...12) : 256)
  var checker = SequenceChecker(root: setup.root, limit: setup.limit)
  var commands: [Command] = []
  var failure: SequenceFailure?
  if let problem = checker.startProblem {
    failure = SequenceFailure(step: -1, command: nil, problem: problem)
  }
  for step in 0..<length where failure == nil {
    let command = generator.command(in: checker.state)
    commands.append(command)
    if let problem = checker.step(command) {
      failure = SequenceFailure(step: step, command: command, problem: problem)
    }
  }
  if failure == nil, let problem = checker.finish() {
    failure = SequenceFailure(step: length, command: nil, problem: problem)
  }
  guard let failure else { return nil }
  let prefix = Array(commands.prefix(failure.step + 1))
  let shortest = shrink(prefix) { replay(setup, $0) != nil }
  let shortestFailure = replay(setup, shortest).map(\.description) ?? "?"
  return """
    \(setup): \(failure)
    shortest failing sequence (\(shortest.count) of \(commands.count) ops), which fails at \
    \(shortestFailure):
    \(shortest.enumerated().map { "  \($0.offset): \(brief($0.element))" }.joined(separator: "\n"))
    """
}

private func environmentNumber(_ name: String) -> UInt64? {
  ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) }
}

@Suite("random operation sequences")
struct PropertyTests {
  static let sequenceCount = environmentNumber("NAV_PROPERTY_SEQUENCES") ?? 10_000
  static let length = 50
  static let shards: [UInt64] = Array(0..<8)

  @Test("10,000 seeded sequences of 50 ops keep every rule after every op", arguments: shards)
  func sequences(shard: UInt64) {
    if let seed = environmentNumber("NAV_PROPERTY_SEED") {
      if shard == 0, let report = runSequence(seed: seed, length: Self.length) {
        Issue.record("\(report)")
      }
      return
    }
    let count = UInt64(Self.shards.count)
    var failures = 0
    for seed in stride(from: shard, to: Self.sequenceCount, by: Int(count)) {
      if let report = runSequence(seed: seed, length: Self.length) {
        Issue.record("\(report)")
        failures += 1
        break  // one shrunk report per shard is enough to go on
      }
    }
    #expect(failures == 0)
  }

  @Test("the generator reaches every kind of command and outcome")
  func coverage() {
    var applied: Set<String> = []
    var refused: Set<String> = []
    var deepest = 0
    for seed in 0..<UInt64(200) {
      var generator = CommandGenerator(seed: seed)
      let root = generator.random.pick(CommandGenerator.roots)
      var state = try? NavigationState.start(
        graph: demoGraph, root: RouteRequest(route: root),
        limits: NavigationLimits(maxCoordinators: seed % 2 == 0 ? 8 : 256)
      ).0
      for _ in 0..<50 {
        guard var current = state else { break }
        let command = generator.command(in: current)
        do {
          _ = try current.apply(command)
          applied.insert(name(of: command))
        } catch {
          refused.insert(error.code.rawValue)
        }
        deepest = max(deepest, current.visiblePath.count)
        state = current
      }
    }
    let kinds: Set<String> = [
      "push", "pop", "present", "dismiss", "back", "replace", "selectTab", "setPath", "deepLink",
      "teardown", "batch",
    ]
    #expect(applied == kinds)
    let codes: Set<NavigationError.Code> = [
      .unknownRoute, .invalidParams, .routeNotAllowed, .presentationNotAllowed, .coordinatorLimit,
      .nothingToPop, .notInActiveFlow, .nothingToDismiss, .notAModal, .nothingToGoBackTo,
      .noTabContainer, .noSuchTab, .cannotReplaceTab, .targetNotFree, .coordinatorStopped,
      .unknownCoordinator, .cannotTearDownRoot, .cannotTearDownTab, .invalidPath, .invalidURL,
      .noRouteForURL, .notARootRoute, .invalidRequest,
    ]
    let missing = codes.map(\.rawValue).filter { !refused.contains($0) }
    #expect(missing == [])
    #expect(deepest >= 6)
  }

  func name(of command: Command) -> String {
    switch command {
    case .push: "push"
    case .pop: "pop"
    case .present: "present"
    case .dismiss: "dismiss"
    case .back: "back"
    case .replace: "replace"
    case .selectTab: "selectTab"
    case .setPath: "setPath"
    case .restore: "restore"
    case .deepLink: "deepLink"
    case .teardown: "teardown"
    case .batch: "batch"
    case .setContext: "setContext"
    case .setLeaveGuard: "setLeaveGuard"
    case .createShare: "createShare"
    case .revokeShare: "revokeShare"
    case .discarding: "discarding"
    }
  }

  @Test("failure reports show commands briefly")
  func briefCommands() {
    #expect(
      brief(.push(detail(1), target: c(2), singleTop: true))
        == #"push detail {"id":1} target c2 singleTop"#)
    #expect(
      brief(.batch([.pop(.toRoot, result: 1), .selectTab(.route("home"), container: c(1))]))
        == "batch [pop toRoot result 1; selectTab home in c1]")
    #expect(
      brief(.setPath([entry("tabs", .root), entry("search", ["query": "x"], .tab)]))
        == #"setPath [tabs(root), search{"query":"x"}(tab)]"#)
  }

  @Test("the shrinker finds a minimal failing subsequence")
  func shrinker() {
    let noise: [Command] = (1...40).map { .push(detail($0)) }
    var commands = noise
    commands.insert(.teardown(c(3)), at: 7)
    commands.insert(
      .batch([.back(), .dismiss(), .present(route("settings"), style: .sheet)]), at: 30)
    // "Fails" when a teardown is followed, later, by a batch holding a present.
    let shortest = shrink(commands) { candidate in
      guard let teardown = candidate.firstIndex(of: .teardown(c(3))) else { return false }
      return candidate[teardown...].contains { op in
        if case .batch(let ops) = op {
          return ops.contains { if case .present = $0 { true } else { false } }
        }
        return false
      }
    }
    #expect(shortest == [.teardown(c(3)), .batch([.present(route("settings"), style: .sheet)])])
  }

  @Test("the checkers notice broken rules")
  func checkersCatchBreakage() throws {
    var state = try NavigationState.start(graph: demoGraph).0
    let before = state
    let events = try state.apply(.push(detail(1)))
    // Events out of order, with a gap in seq, or a version not bumped are reported.
    let wrongSeq = events.map {
      NavigationEvent(seq: $0.seq + 1, version: $0.version, kind: $0.kind)
    }
    #expect(
      !eventRuleViolations(wrongSeq, before: before, after: state, orderedByOperation: true).isEmpty
    )
    #expect(
      !eventRuleViolations([], before: before, after: state, orderedByOperation: true).isEmpty)
    let stop = NavigationEvent(
      seq: 3, version: 2, kind: .stopped(c(1), route: "master", reason: .pop))
    #expect(
      eventRuleViolations(events + [stop], before: before, after: state, orderedByOperation: true)
        .contains("a started event came before a stopped one"))
    // An orphan made behind the API's back breaks the shape rules.
    state.coordinators[c(1)]?.children = []
    #expect(state.invariantViolations().contains { $0.contains("not reachable") })
  }
}

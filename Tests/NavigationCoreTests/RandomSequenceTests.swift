import NavJSON
import Testing

@testable import NavigationCore

/// SplitMix64: small, fast and seedable, so a failure can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = state
    mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    return mixed ^ (mixed >> 31)
  }
}

/// Random operations over the demo graph, valid and invalid, ids included that are live,
/// stopped or never issued.
struct CommandGenerator {
  var random: SeededGenerator
  let routes = demoGraph.routes.map(\.name)
  static let roots = ["master", "tabs", "login", "scene1"]
  static let links = [
    "/master/detail/3", "myapp://tabs/search?query=x", "https://h/login/forgotPassword",
    "/master/settings", "/tabs/profile/settings", "/scene1/scene2/hi", "/nope", "master",
    "/master/detail/1/detail/2/settings", "/login/signup/dashboard",
  ]

  mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
  mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }

  mutating func routeRequest() -> RouteRequest {
    let name = routes[int(0...routes.count - 1)]
    var params = JSONObject()
    if name == "detail" { params["id"] = .int(int(0...3)) }
    if name == "scene2" || name == "scene3" { params["text"] = "t" }
    if chance(12) { params["bogus"] = 1 }
    if chance(12) { params["id"] = "not a number" }
    return RouteRequest(route: name, params: params)
  }

  mutating func id(in state: NavigationState) -> CoordinatorID {
    CoordinatorID(int(0...state.lastIssuedID + 2))
  }

  mutating func command(in state: NavigationState, nested: Bool = false) -> Command {
    switch int(0...13) {
    case 0, 1, 2:
      return .push(routeRequest(), target: chance(5) ? id(in: state) : nil, singleTop: chance(3))
    case 3:
      let amounts: [PopAmount] = [.count(int(0...3)), .to(id(in: state)), .toRoot]
      return .pop(amounts[int(0...2)], result: chance(2) ? "done" : nil)
    case 4, 5:
      return .present(routeRequest(), style: chance(2) ? .sheet : .fullScreenCover)
    case 6:
      let targets: [DismissTarget] = [.current, .coordinator(id(in: state)), .all]
      return .dismiss(targets[int(0...2)], result: chance(3) ? 1 : nil)
    case 7: return .back(result: chance(2) ? ["ok": true] : nil)
    case 8: return .replace(routeRequest())
    case 9:
      let selector: TabSelector =
        chance(2) ? .index(int(-1...3)) : .route(routes[int(0...routes.count - 1)])
      return .selectTab(selector, container: chance(3) ? id(in: state) : nil)
    case 10: return .teardown(id(in: state))
    case 11: return .deepLink(Self.links[int(0...Self.links.count - 1)])
    case 12:
      var path = [PathEntry(route: Self.roots[int(0...3)], presentation: .root)]
      for _ in 0..<int(0...4) {
        let request = routeRequest()
        let presentation = Presentation.allCases[int(0...Presentation.allCases.count - 1)]
        path.append(
          PathEntry(route: request.route, params: request.params, presentation: presentation))
      }
      return .setPath(path)
    default:
      if nested { return .back() }
      var ops: [Command] = []
      var scratch = state
      for _ in 0..<int(0...4) {
        let op = command(in: scratch, nested: true)
        ops.append(op)
        _ = try? scratch.apply(op)
      }
      return .batch(ops)
    }
  }
}

/// What went wrong in one run, if anything.
struct SequenceFailure: Error, CustomStringConvertible {
  var step: Int
  var command: Command
  var problem: String
  var description: String { "step \(step): \(command): \(problem)" }
}

/// Replays `commands` from a fresh session, checking every rule after every operation.
func check(root: String, limit: Int, _ commands: [Command]) -> SequenceFailure? {
  guard
    let (initial, startEvents) = try? NavigationState.start(
      graph: demoGraph, root: RouteRequest(route: root),
      limits: NavigationLimits(maxCoordinators: limit))
  else { return SequenceFailure(step: -1, command: .back(), problem: "start failed") }
  var state = initial
  var live = startEvents.count
  var lastSeq = state.lastSeq
  for (step, command) in commands.enumerated() {
    let before = state
    func fail(_ problem: String) -> SequenceFailure {
      SequenceFailure(step: step, command: command, problem: problem)
    }
    do {
      let events = try state.apply(command)
      for event in events {
        lastSeq += 1
        if event.seq != lastSeq { return fail("seq \(event.seq) after \(lastSeq - 1)") }
        if event.version != state.version {
          return fail("event version \(event.version) != \(state.version)")
        }
        switch event.kind {
        case .started: live += 1
        case .stopped: live -= 1
        default: break
        }
      }
      if events.isEmpty, !sameState(before, state) { return fail("changed without events") }
      if !events.isEmpty, state.version != before.version + 1 {
        return fail("version moved by more than one")
      }
      if case .batch(let ops) = command {
        var oneByOne = before
        var kinds: [NavigationEvent.Kind] = []
        for op in ops {
          guard let opEvents = try? oneByOne.apply(op) else {
            return fail("an op of an applied batch is refused alone")
          }
          kinds += opEvents.map(\.kind)
        }
        if oneByOne.coordinators != state.coordinators || oneByOne.rootID != state.rootID {
          return fail("the batch and its ops one by one end in different trees")
        }
        if kinds != events.map(\.kind) {
          return fail("the batch and its ops one by one differ in events")
        }
      }
    } catch {
      if !sameState(before, state) {
        return fail("refused with \(error.code) but changed the state")
      }
    }
    let violations = state.invariantViolations()
    if !violations.isEmpty { return fail("invariants: \(violations)") }
    if live != state.liveCount {
      return fail("started - stopped = \(live), live = \(state.liveCount)")
    }
  }
  return nil
}

/// Removes ops while the failure stays (greedy delta debugging): the shortest sequence found.
func shrink(root: String, limit: Int, _ commands: [Command]) -> [Command] {
  var current = commands
  var chunk = max(1, current.count / 2)
  while chunk >= 1 {
    var index = 0
    var removedAny = false
    while index < current.count {
      var candidate = current
      candidate.removeSubrange(index..<min(index + chunk, candidate.count))
      if check(root: root, limit: limit, candidate) != nil {
        current = candidate
        removedAny = true
      } else {
        index += chunk
      }
    }
    if !removedAny { chunk /= 2 }
  }
  return current
}

@Suite("random operation sequences")
struct RandomSequenceTests {
  @Test("10,000 seeded sequences of 50 ops keep every rule after every op")
  func sequences() {
    let sequences = 10_000
    var failures = 0
    for seed in 0..<UInt64(sequences) {
      var generator = CommandGenerator(random: SeededGenerator(state: seed))
      let root = CommandGenerator.roots[generator.int(0...3)]
      let limit = generator.chance(4) ? 8 : 256
      var state = try? NavigationState.start(
        graph: demoGraph, root: RouteRequest(route: root),
        limits: NavigationLimits(maxCoordinators: limit)
      ).0
      var commands: [Command] = []
      for _ in 0..<50 {
        guard let current = state else { break }
        let command = generator.command(in: current)
        commands.append(command)
        _ = try? state?.apply(command)
      }
      if let failure = check(root: root, limit: limit, commands) {
        failures += 1
        let shortest = shrink(root: root, limit: limit, commands)
        Issue.record(
          "seed \(seed) (root \(root), limit \(limit)): \(failure)\nshortest failing sequence (\(shortest.count) ops): \(shortest)"
        )
        if failures >= 3 { break }
      }
    }
    #expect(failures == 0)
  }

  @Test("the checker itself catches a broken rule")
  func checkerCatchesBreakage() throws {
    var state = try NavigationState.start(graph: demoGraph).0
    _ = try state.apply(.push(detail(1)))
    // Orphan a coordinator behind the API's back: the invariant checker must notice.
    state.coordinators[CoordinatorID(1)]?.children.removeAll()
    #expect(state.invariantViolations().contains { $0.contains("not reachable") })
  }
}

import NavJSON
import Testing

@testable import NavigationCore

/// `allowed` lists exactly what the server would accept: over random states, every listed
/// operation succeeds and every unlisted one is refused.
@Suite("Affordances")
struct AffordanceTests {
  /// Params a route accepts: a value of its type for every required param.
  static func validParams(_ route: Route) -> JSONObject {
    var params = JSONObject()
    for (name, spec) in route.params where spec.required {
      switch spec.type {
      case .int: params[name] = 1
      case .number: params[name] = 1.5
      case .string: params[name] = "x"
      case .bool: params[name] = true
      }
    }
    return params
  }

  static func accepts(_ state: NavigationState, _ command: Command) -> Bool {
    var copy = state
    return (try? copy.apply(command)) != nil
  }

  /// Every disagreement between `allowed` and what the operations do.
  static func disagreements(in state: NavigationState) -> [String] {
    let allowed = state.allowed
    var found: [String] = []
    func compare(_ what: String, listed: Bool, accepted: Bool) {
      if listed != accepted {
        found.append(
          "\(what): \(listed ? "listed" : "not listed") but \(accepted ? "accepted" : "refused")")
      }
    }
    for route in state.graph.routes {
      let request = RouteRequest(route: route.name, params: validParams(route))
      compare(
        "push \(route.name)", listed: allowed.push.contains(route.name),
        accepted: accepts(state, .push(request)))
      compare(
        "sheet \(route.name)", listed: allowed.sheet.contains(route.name),
        accepted: accepts(state, .present(request, style: .sheet)))
      compare(
        "cover \(route.name)", listed: allowed.fullScreenCover.contains(route.name),
        accepted: accepts(state, .present(request, style: .fullScreenCover)))
      compare(
        "replace \(route.name)", listed: allowed.replace.contains(route.name),
        accepted: accepts(state, .replace(request)))
      compare(
        "tab \(route.name)", listed: allowed.tabs.contains(route.name),
        accepted: accepts(state, .selectTab(.route(route.name))))
    }
    compare("pop", listed: allowed.pop, accepted: accepts(state, .pop()))
    compare("back", listed: allowed.back, accepted: accepts(state, .back()))
    compare("dismiss", listed: allowed.dismiss, accepted: accepts(state, .dismiss()))
    for number in 1...max(1, state.lastIssuedID) {
      let id = CoordinatorID(number)
      // A teardown of a stopped coordinator is a no-op success: only a change counts here.
      var copy = state
      let changed = ((try? copy.apply(.teardown(id))) ?? []).isEmpty == false
      compare("teardown \(id)", listed: allowed.teardown.contains(id), accepted: changed)
    }
    return found
  }

  @Test("over random states, every listed operation succeeds and every unlisted one is refused")
  func listedMeansAccepted() {
    var checkedStates = 0
    var listedSomething = Affordances()
    for seed in UInt64(1)...300 {
      var generator = CommandGenerator(seed: seed)
      let root = generator.random.pick(CommandGenerator.roots)
      let limit = generator.random.chance(4) ? generator.random.int(4...12) : 256
      guard
        var (state, _) = try? NavigationState.start(
          graph: demoGraph, root: RouteRequest(route: root),
          limits: NavigationLimits(maxCoordinators: limit))
      else { continue }
      for step in 0..<25 {
        let problems = Self.disagreements(in: state)
        #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
        if !problems.isEmpty { return }
        checkedStates += 1
        let allowed = state.allowed
        listedSomething.push += allowed.push
        listedSomething.replace += allowed.replace
        listedSomething.tabs += allowed.tabs
        listedSomething.pop = listedSomething.pop || allowed.pop
        listedSomething.dismiss = listedSomething.dismiss || allowed.dismiss
        _ = try? state.apply(generator.command(in: state))
        if state.isEnded { break }
      }
    }
    #expect(checkedStates > 5000)
    // The walk reached states where each kind of affordance is on offer.
    #expect(!listedSomething.push.isEmpty && !listedSomething.replace.isEmpty)
    #expect(!listedSomething.tabs.isEmpty && listedSomething.pop && listedSomething.dismiss)
  }

  /// What guards add to `disagreements`: `discard` lets every structurally possible pop,
  /// back and dismiss through; `leaveGuard` is named exactly when a guard holds one back;
  /// `redirects` names exactly the listed closed routes.
  static func guardDisagreements(in state: NavigationState) -> [String] {
    let allowed = state.allowed
    var found: [String] = []
    let pop = accepts(state, .discarding(.pop()))
    let back = accepts(state, .discarding(.back()))
    let dismiss = accepts(state, .discarding(.dismiss()))
    let held = (pop && !allowed.pop) || (back && !allowed.back) || (dismiss && !allowed.dismiss)
    if held != (allowed.leaveGuard != nil) {
      found.append("leaveGuard \(String(describing: allowed.leaveGuard)) but held back: \(held)")
    }
    if let named = allowed.leaveGuard, state.leaveGuard(of: named.coordinator) != named.reason {
      found.append("leaveGuard names \(named), which is not a guard")
    }
    let listed = Set(allowed.push + allowed.sheet + allowed.fullScreenCover + allowed.replace)
    for name in listed where !state.graph.isOpen(name, in: state.context) {
      if allowed.redirects[name] == nil { found.append("closed \(name) listed without redirect") }
    }
    for (name, redirect) in allowed.redirects {
      if state.graph.isOpen(name, in: state.context) { found.append("open \(name) in redirects") }
      if !listed.contains(name) { found.append("\(name) in redirects but not listed") }
      if state.graph.routeGuard(of: name)?.redirect != redirect {
        found.append("\(name) redirects to \(redirect)?")
      }
    }
    return found
  }

  static let contexts: [SessionContext] = [
    [:], signedIn, ["signedIn": .bool(false)], ["signedIn": .bool(true), "plan": .string("pro")],
    ["roles": .strings(["user", "admin"])],
    ["signedIn": .bool(true), "plan": .string("team"), "roles": .strings(["owner"])],
    ["authenticated": .bool(true)], ["authenticated": .bool(true), "emailVerified": .bool(true)],
  ]

  /// A random command for the guarded walk: mostly what `allowed` offers, often a context or a
  /// leave guard change, sometimes a discard, a teardown, a path or a link.
  static func guardedCommand(_ state: NavigationState, _ random: inout SplitMix64) -> Command {
    let allowed = state.allowed
    func request(_ names: [String]) -> RouteRequest? {
      guard !names.isEmpty, let route = state.graph.route(named: random.pick(names)) else {
        return nil
      }
      return RouteRequest(route: route.name, params: validParams(route))
    }
    let live = state.coordinators.keys
    switch random.int(0...13) {
    case 0, 1: return request(allowed.push).map { .push($0) } ?? .back()
    case 2: return request(allowed.sheet).map { .present($0, style: .sheet) } ?? .back()
    case 3:
      return request(allowed.fullScreenCover).map { .present($0, style: .fullScreenCover) }
        ?? .back()
    case 4: return request(allowed.replace).map { .replace($0) } ?? .pop()
    case 5: return random.pick([Command.pop(), .back(), .dismiss(), .dismiss(.all)])
    case 6, 7: return .setContext(random.pick(contexts))
    case 8:
      let id = random.pick(live)
      return .setLeaveGuard(id, reason: random.chance(3) ? nil : "r\(id.number)")
    case 9: return .discarding(random.pick([Command.pop(), .back(), .dismiss()]))
    case 10: return .teardown(random.pick(live))
    case 11:
      let roots = state.graph.routes.filter { state.graph.mayBeRoot($0) }.map(\.name)
      var entries = [PathEntry(route: random.pick(roots), presentation: .root)]
      for _ in 0..<random.int(0...2) {
        let next = state.graph.routes.filter { $0.tabs == nil && $0.presentations.contains(.push) }
        let route = random.pick(next)
        entries.append(
          PathEntry(route: route.name, params: validParams(route), presentation: .push))
      }
      return .setPath(entries)
    case 12:
      let links = [
        "/home/account", "/home/detail/1/account/detail/2", "/vault/vaultKeys", "/admin",
        "/dashboard/checkout/7", "/login/forgotPassword", "/home/billing",
      ]
      return .deepLink(random.pick(links))
    default:
      return .batch([.setContext(random.pick(contexts)), .discarding(.back())])
    }
  }

  @Test("over random states, contexts and leave guards on guarded graphs, allowed is exact")
  func guardedListedMeansAccepted() {
    var checkedStates = 0
    var redirectsSeen = 0
    var heldBack = 0
    for seed in UInt64(1)...240 {
      var random = SplitMix64(seed: seed)
      let graph = seed % 3 == 0 ? zumryGraph : gatedGraph
      let roots = graph.routes.filter { graph.mayBeRoot($0) }.map(\.name)
      let limit = random.chance(4) ? random.int(3...8) : 256
      guard
        var (state, _) = try? NavigationState.start(
          graph: graph, root: RouteRequest(route: random.pick(roots)),
          context: random.pick(Self.contexts), limits: NavigationLimits(maxCoordinators: limit))
      else { continue }
      for step in 0..<30 {
        let problems =
          Self.disagreements(in: state) + Self.guardDisagreements(in: state)
          + guardViolations(state) + state.invariantViolations()
        #expect(problems.isEmpty, "seed \(seed) step \(step): \(problems)")
        if !problems.isEmpty { return }
        checkedStates += 1
        redirectsSeen += state.allowed.redirects.count
        if state.allowed.leaveGuard != nil { heldBack += 1 }
        let command = Self.guardedCommand(state, &random)
        let before = state
        if let events = try? state.apply(command) {
          var isBatch = false
          if case .batch = command { isBatch = true }
          let rules = eventRuleViolations(
            events, before: before, after: state, orderedByOperation: !isBatch)
          #expect(rules.isEmpty, "seed \(seed) step \(step) \(brief(command)): \(rules)")
          if !rules.isEmpty { return }
        } else if Snapshot(state) != Snapshot(before) || state.context != before.context
          || state.pendingRequest != before.pendingRequest
          || state.leaveGuards != before.leaveGuards
        {
          Issue.record("seed \(seed) step \(step): a refused \(brief(command)) changed the state")
          return
        }
      }
    }
    #expect(checkedStates > 5000)
    #expect(redirectsSeen > 0 && heldBack > 0)
  }

  @Test("the affordances of the demo graph's master/detail screens")
  func masterDetail() throws {
    var (state, _) = try NavigationState.start(graph: demoGraph)
    var allowed = state.allowed
    // master may show detail (any way) and settings (only as a sheet).
    #expect(allowed.push == ["detail"])
    #expect(allowed.sheet == ["detail", "settings"])
    #expect(allowed.fullScreenCover == ["detail"])
    #expect(allowed.replace == ["master", "login", "tabs", "scene1"])
    #expect(allowed.tabs.isEmpty)
    #expect(!allowed.pop && !allowed.back && !allowed.dismiss)
    #expect(allowed.teardown.isEmpty)
    _ = try state.apply(.push(RouteRequest(route: "detail", params: ["id": 1])))
    _ = try state.apply(.present(RouteRequest(route: "settings"), style: .sheet))
    allowed = state.allowed
    // settings names no `next`, so it may push any route that may be pushed at all.
    #expect(allowed.push.contains("detail") && !allowed.push.contains("settings"))
    #expect(!allowed.pop && allowed.back && allowed.dismiss)
    #expect(allowed.teardown == [CoordinatorID(2), CoordinatorID(3)])
  }
}

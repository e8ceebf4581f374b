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

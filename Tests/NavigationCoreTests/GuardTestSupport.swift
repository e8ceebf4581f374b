import NavJSON
import Testing

@testable import NavigationCore

/// The built-in Zumry example graph (dashboard behind login).
let zumryGraph: RouteGraph = {
  do {
    return try BuiltInGraphs.zumry()
  } catch {
    preconditionFailure("the zumry graph must load: \(error)")
  }
}()

/// A graph with every kind of guard: a redirect pushed, presented and taking a root's place;
/// a route without redirect; an array requirement; a guarded tab container.
let gatedGraph: RouteGraph = {
  let json = """
    {"name": "gated", "root": "home", "routes": [
      {"name": "home", "root": true},
      {"name": "account", "requires": {"signedIn": true}, "redirect": "signin"},
      {"name": "admin", "root": true, "requires": {"roles": ["admin", "owner"]}},
      {"name": "billing", "presentation": "sheet", "presentations": ["sheet", "fullScreenCover"],
       "requires": {"signedIn": true, "plan": ["pro", "team"]}, "redirect": "upgrade"},
      {"name": "upgrade", "presentation": "sheet", "presentations": ["sheet"], "next": []},
      {"name": "signin", "root": true},
      {"name": "vault", "root": true, "tabs": ["vaultHome", "vaultKeys"],
       "requires": {"signedIn": true}, "redirect": "signin"},
      {"name": "vaultHome"},
      {"name": "vaultKeys"},
      {"name": "detail", "params": {"id": {"type": "int", "required": true}},
       "next": ["detail", "account", "billing", "admin", "signin", "upgrade"]}
    ]}
    """
  do {
    return try loadGraph(json, source: "gated.json")
  } catch {
    preconditionFailure("the gated graph must load: \(error)")
  }
}()

let signedIn: SessionContext = ["signedIn": .bool(true)]

/// A session on a guarded graph, every operation checked as `Session` checks them, plus the
/// guard rules: every live coordinator shows an open route, and a pending request's redirect
/// coordinator is live.
struct GuardedSession {
  var state: NavigationState
  var startEvents: [String]

  init(
    graph: RouteGraph = gatedGraph, root: String? = nil, context: SessionContext = [:],
    limits: NavigationLimits = .init()
  ) throws {
    let (state, events) = try NavigationState.start(
      graph: graph, root: root.map { RouteRequest(route: $0) }, context: context, limits: limits)
    self.state = state
    startEvents = describe(events)
    #expect(state.invariantViolations() == [])
    #expect(guardViolations(state) == [])
  }

  @discardableResult
  mutating func apply(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation)
    throws -> [String]
  {
    let events = try applyChecked(command, to: &state, sourceLocation: sourceLocation)
    #expect(guardViolations(state) == [], sourceLocation: sourceLocation)
    return describe(events)
  }

  @discardableResult
  mutating func refuse(
    _ command: Command, _ code: NavigationError.Code, opIndex: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) -> NavigationError? {
    let pending = state.pendingRequest
    let guards = state.leaveGuards
    let context = state.context
    let refusal = expectRefusal(
      command, on: &state, code, opIndex: opIndex, sourceLocation: sourceLocation)
    #expect(state.pendingRequest == pending, sourceLocation: sourceLocation)
    #expect(state.leaveGuards == guards, sourceLocation: sourceLocation)
    #expect(state.context == context, sourceLocation: sourceLocation)
    return refusal
  }

  var routes: [String] { state.visiblePath.compactMap { state[$0]?.route } }
  var path: [String] { state.visiblePath.map(\.description) }
}

/// The rules guards add to the shape rules, as a list of violations.
func guardViolations(_ state: NavigationState) -> [String] {
  var problems: [String] = []
  for node in state.coordinators.values where !state.graph.isOpen(node.route, in: state.context) {
    problems.append("\(node.id) shows closed route '\(node.route)'")
  }
  if let pending = state.pendingRequest, state[pending.coordinator] == nil {
    problems.append("the pending request's redirect \(pending.coordinator) is not live")
  }
  for leaveGuard in state.leaveGuards where state[leaveGuard.coordinator] == nil {
    problems.append("leave guard on stopped \(leaveGuard.coordinator)")
  }
  if state.leaveGuards.map(\.coordinator) != state.leaveGuards.map(\.coordinator).sorted() {
    problems.append("leave guards out of order")
  }
  return problems
}

import NavJSON
import Testing

@testable import NavigationCore

let demoGraph: RouteGraph = {
  do {
    return try BuiltInGraphs.load()[0]
  } catch {
    preconditionFailure("the demo graph must load: \(error)")
  }
}()

func detail(_ id: Int) -> RouteRequest { RouteRequest(route: "detail", params: ["id": .int(id)]) }

func route(_ name: String, _ params: JSONObject = [:]) -> RouteRequest {
  RouteRequest(route: name, params: params)
}

/// A session on the demo graph for one test; every operation is checked against the shape rules.
struct Fixture {
  var state: NavigationState

  init(root: String = "master", limits: NavigationLimits = .init()) throws {
    (state, _) = try NavigationState.start(
      graph: demoGraph, root: RouteRequest(route: root), limits: limits)
  }

  /// Applies `command`, expects it to succeed, checks the invariants, returns its events.
  @discardableResult
  mutating func apply(_ command: Command, sourceLocation: SourceLocation = #_sourceLocation) throws
    -> [NavigationEvent]
  {
    let events = try state.apply(command)
    #expect(state.invariantViolations() == [], sourceLocation: sourceLocation)
    return events
  }

  /// Expects `command` to be refused with `code`, and the state to be exactly as before.
  mutating func refuse(
    _ command: Command, _ code: NavigationError.Code,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let before = state
    do {
      _ = try state.apply(command)
      Issue.record(
        "\(command) was applied; expected \(code.rawValue)", sourceLocation: sourceLocation)
    } catch {
      #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
    #expect(
      sameState(before, state), "a refused operation changed the state",
      sourceLocation: sourceLocation)
  }

  var routes: [String] { state.visiblePath.compactMap { state[$0]?.route } }
  var active: Coordinator? { state.activeID.flatMap { state[$0] } }
  func id(at position: Int) -> CoordinatorID { state.visiblePath[position] }
}

func sameState(_ lhs: NavigationState, _ rhs: NavigationState) -> Bool {
  lhs.coordinators == rhs.coordinators && lhs.rootID == rhs.rootID && lhs.version == rhs.version
    && lhs.lastSeq == rhs.lastSeq && lhs.lastIssuedID == rhs.lastIssuedID
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
    }
  }
}

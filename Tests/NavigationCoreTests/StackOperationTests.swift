import NavJSON
import Testing

@testable import NavigationCore

@Suite("push, pop and replace")
struct StackOperationTests {
  @Test("start: the root coordinator c1 at version 1, seq 1")
  func start() throws {
    let (state, events) = try NavigationState.start(graph: demoGraph)
    #expect(describe(events) == ["started c1 master root under -"])
    #expect(events.map(\.seq) == [1])
    #expect(events.map(\.version) == [1])
    #expect(state.version == 1)
    #expect(state.activeID == CoordinatorID(1))
  }

  @Test("start refuses a route that may not be a root, and unknown routes")
  func startRefusals() {
    #expect(throws: NavigationError.self) {
      try NavigationState.start(graph: demoGraph, root: detail(1))
    }
    do {
      _ = try NavigationState.start(graph: demoGraph, root: route("settings"))
      Issue.record("settings became a root")
    } catch {
      #expect(error.code == .notARootRoute)
    }
  }

  @Test("push adds a push child to the active coordinator and bumps the version once")
  func push() throws {
    var session = try Fixture()
    let events = try session.apply(.push(detail(1)))
    #expect(describe(events) == ["started c2 detail push under c1"])
    #expect(events.map(\.version) == [2])
    #expect(session.routes == ["master", "detail"])
    #expect(session.active?.params == ["id": .int(1)])
  }

  @Test("push fills declared defaults and refuses bad params")
  func params() throws {
    var session = try Fixture(root: "tabs")
    try session.apply(.push(route("detail", ["id": 2]), target: session.id(at: 1)))
    var search = try Fixture(root: "tabs")
    try search.apply(.selectTab(.route("search")))
    #expect(search.active?.params == ["query": .string("")])
    var master = try Fixture()
    master.refuse(.push(route("detail")), .invalidParams)
    master.refuse(.push(route("detail", ["id": "one"])), .invalidParams)
    master.refuse(.push(route("detail", ["id": 1.5])), .invalidParams)
    master.refuse(.push(route("detail", ["id": 1, "extra": true])), .invalidParams)
    try master.apply(.push(route("detail", ["id": 3.0])))
    #expect(master.active?.params == ["id": .int(3)])
  }

  @Test("push refusals: unknown route, not allowed from here, presentation, limit")
  func pushRefusals() throws {
    var session = try Fixture()
    session.refuse(.push(route("nowhere")), .unknownRoute)
    session.refuse(.push(route("login")), .routeNotAllowed)
    session.refuse(.push(route("settings")), .presentationNotAllowed)
    var small = try Fixture(limits: NavigationLimits(maxCoordinators: 3))
    try small.apply(.push(detail(1)))
    try small.apply(.push(detail(2)))
    small.refuse(.push(detail(3)), .coordinatorLimit)
  }

  @Test("push with a target: onto a free coordinator only")
  func pushTarget() throws {
    var session = try Fixture(root: "tabs")
    let search = session.state[session.id(at: 0)]?.children[1]
    let target = try #require(search)
    try session.apply(.push(detail(5), target: target))
    #expect(session.routes == ["tabs", "home"])
    try session.apply(.selectTab(.index(1)))
    #expect(session.routes == ["tabs", "search", "detail"])
    session.refuse(.push(detail(6), target: target), .targetNotFree)
    session.refuse(.push(detail(6), target: CoordinatorID(99)), .unknownCoordinator)
    let pushed = session.id(at: 2)
    try session.apply(.pop())
    session.refuse(.push(detail(6), target: pushed), .coordinatorStopped)
  }

  @Test("singleTop: pushing what is on top changes nothing, not even the version")
  func singleTop() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    let before = session.state
    let events = try session.apply(.push(detail(1), singleTop: true))
    #expect(events.isEmpty)
    #expect(sameState(before, session.state))
    try session.apply(.push(detail(2), singleTop: true))
    #expect(session.routes == ["master", "detail", "detail"])
    try session.apply(.push(detail(2)))
    #expect(session.routes.count == 4)
  }

  @Test("pop count stops the top pushes, deepest first, and refuses too many")
  func popCount() throws {
    var session = try Fixture()
    for id in 1...3 { try session.apply(.push(detail(id))) }
    session.refuse(.pop(.count(4)), .nothingToPop)
    session.refuse(.pop(.count(0)), .invalidRequest)
    let events = try session.apply(.pop(.count(2)))
    #expect(describe(events) == ["stopped c4 detail pop", "stopped c3 detail pop"])
    #expect(session.routes == ["master", "detail"])
  }

  @Test("pop to a coordinator, and refusals outside the active flow")
  func popTo() throws {
    var session = try Fixture()
    for id in 1...3 { try session.apply(.push(detail(id))) }
    try session.apply(.present(route("settings"), style: .sheet))
    session.refuse(.pop(.to(CoordinatorID(2))), .notInActiveFlow)
    session.refuse(.pop(.to(CoordinatorID(77))), .unknownCoordinator)
    try session.apply(.dismiss())
    session.refuse(.pop(.to(CoordinatorID(4))), .nothingToPop)
    let events = try session.apply(.pop(.to(CoordinatorID(2))))
    #expect(describe(events) == ["stopped c4 detail pop", "stopped c3 detail pop"])
    #expect(session.active?.id == CoordinatorID(2))
  }

  @Test("pop to root stops every push of the active flow; with none it is refused")
  func popToRoot() throws {
    var session = try Fixture()
    session.refuse(.pop(.toRoot), .nothingToPop)
    session.refuse(.pop(), .nothingToPop)
    for id in 1...3 { try session.apply(.push(detail(id))) }
    let events = try session.apply(.pop(.toRoot))
    #expect(events.count == 3)
    #expect(session.routes == ["master"])
  }

  @Test("pop with a result resumes the coordinator that becomes active")
  func popResult() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    try session.apply(.push(detail(2)))
    let events = try session.apply(.pop(result: ["picked": 7]))
    #expect(describe(events) == ["stopped c3 detail pop", #"resumed c2 {"picked":7}"#])
    let silent = try session.apply(.pop(result: .null))
    #expect(describe(silent) == ["stopped c2 detail pop"])
  }

  @Test("pop only pops the active flow: pushes under a sheet, not under the presenter")
  func popActiveFlow() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("settings"), style: .sheet))
    session.refuse(.pop(), .nothingToPop)
  }

  @Test("replace swaps the active coordinator for a new id, same parent and presentation")
  func replace() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    let events = try session.apply(.replace(detail(2)))
    #expect(describe(events) == ["stopped c2 detail replace", "started c3 detail push under c1"])
    #expect(session.active?.params == ["id": .int(2)])
    session.refuse(.replace(route("settings")), .presentationNotAllowed)
    session.refuse(.replace(route("login")), .routeNotAllowed)
  }

  @Test("replace on the root needs a root route; on a tab it is refused")
  func replaceRoot() throws {
    var session = try Fixture()
    let events = try session.apply(.replace(route("login")))
    #expect(describe(events) == ["stopped c1 master replace", "started c2 login root under -"])
    session.refuse(.replace(detail(1)), .notARootRoute)
    var tabs = try Fixture(root: "tabs")
    tabs.refuse(.replace(route("profile")), .cannotReplaceTab)
  }

  @Test("ids are never reused after coordinators stop")
  func idsNotReused() throws {
    var session = try Fixture()
    var seen: Set<CoordinatorID> = [CoordinatorID(1)]
    for id in 1...5 {
      let events = try session.apply(.push(detail(id)))
      for event in events {
        if case .started(let started, _, _, _, _) = event.kind {
          #expect(seen.insert(started).inserted)
        }
      }
      try session.apply(.pop())
    }
  }
}

import NavJSON
import Testing

@testable import NavigationCore

@Suite("tabs, teardown and the end of a session")
struct TabAndTeardownTests {
  @Test("a tab container starts with one tab child per tab, in order, the first selected")
  func tabsStart() throws {
    let (state, events) = try NavigationState.start(graph: demoGraph, root: route("tabs"))
    #expect(
      describe(events) == [
        "started c1 tabs root under -", "started c2 home tab under c1",
        "started c3 search tab under c1", "started c4 profile tab under c1",
      ])
    #expect(state[CoordinatorID(1)]?.selectedTab == 0)
    #expect(state.visiblePath == [CoordinatorID(1), CoordinatorID(2)])
  }

  @Test("select a tab by index or by name; selecting the selected tab changes nothing")
  func selectTab() throws {
    var session = try Fixture(root: "tabs")
    let events = try session.apply(.selectTab(.route("profile")))
    #expect(describe(events) == ["tab c1 2 profile"])
    #expect(session.routes == ["tabs", "profile"])
    try session.apply(.selectTab(.index(1)))
    #expect(session.routes == ["tabs", "search"])
    let before = session.state
    #expect(try session.apply(.selectTab(.index(1))).isEmpty)
    #expect(sameState(before, session.state))
  }

  @Test("select-tab refusals: no container, no such tab, a container that is not one")
  func selectTabRefusals() throws {
    var master = try Fixture()
    master.refuse(.selectTab(.index(0)), .noTabContainer)
    var session = try Fixture(root: "tabs")
    session.refuse(.selectTab(.index(3)), .noSuchTab)
    session.refuse(.selectTab(.index(-1)), .noSuchTab)
    session.refuse(.selectTab(.route("settings")), .noSuchTab)
    session.refuse(.selectTab(.index(0), container: CoordinatorID(2)), .noTabContainer)
    session.refuse(.selectTab(.index(0), container: CoordinatorID(20)), .unknownCoordinator)
    try session.apply(.selectTab(.index(2), container: CoordinatorID(1)))
    #expect(session.routes == ["tabs", "profile"])
  }

  @Test("teardown stops the coordinator and everything under it, deepest first")
  func teardown() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    try session.apply(.push(detail(2)))
    try session.apply(.present(route("settings"), style: .sheet))
    let events = try session.apply(.teardown(CoordinatorID(2)))
    #expect(
      describe(events) == [
        "stopped c4 settings teardown", "stopped c3 detail teardown", "stopped c2 detail teardown",
      ])
    #expect(events.map(\.version) == [5, 5, 5])
    #expect(session.routes == ["master"])
    #expect(session.state.liveCount == 1)
  }

  @Test("teardown of a stopped coordinator is a no-op; never issued, root and tab are refused")
  func teardownRules() throws {
    var session = try Fixture(root: "tabs")
    try session.apply(.present(route("settings"), style: .sheet))
    try session.apply(.teardown(CoordinatorID(5)))
    let before = session.state
    #expect(try session.apply(.teardown(CoordinatorID(5))).isEmpty)
    #expect(sameState(before, session.state))
    session.refuse(.teardown(CoordinatorID(6)), .unknownCoordinator)
    session.refuse(.teardown(CoordinatorID(1)), .cannotTearDownRoot)
    session.refuse(.teardown(CoordinatorID(3)), .cannotTearDownTab)
  }

  @Test("the end of a session stops everything, children first, then session.ended")
  func end() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("settings"), style: .sheet))
    let events = session.state.end(reason: .expired)
    #expect(
      describe(events) == [
        "stopped c3 settings sessionEnded", "stopped c2 detail sessionEnded",
        "stopped c1 master sessionEnded", "ended expired",
      ])
    #expect(session.state.liveCount == 0)
    #expect(session.state.isEnded)
    #expect(session.state.end(reason: .deleted).isEmpty)
    session.refuse(.push(detail(1)), .sessionEnded)
  }

  @Test("batch: one version bump, every event, op by op")
  func batch() throws {
    var session = try Fixture()
    let events = try session.apply(
      .batch([.push(detail(1)), .present(route("settings"), style: .sheet), .back(result: 1)]))
    #expect(
      describe(events) == [
        "started c2 detail push under c1", "started c3 settings sheet under c2",
        "stopped c3 settings dismiss", "resumed c2 1",
      ])
    #expect(Set(events.map(\.version)) == [2])
    #expect(session.state.version == 2)
  }

  @Test("a refused batch names the op, changes nothing; batches do not nest")
  func batchRefused() throws {
    var session = try Fixture()
    let before = session.state
    do {
      _ = try session.state.apply(.batch([.push(detail(1)), .pop(), .pop()]))
      Issue.record("the batch was applied")
    } catch {
      #expect(error.code == .nothingToPop)
      #expect(error.opIndex == 2)
    }
    #expect(sameState(before, session.state))
    session.refuse(.batch([.batch([])]), .invalidRequest)
    #expect(try session.apply(.batch([])).isEmpty)
  }

  @Test("stopped events come before started ones within an operation")
  func stopsBeforeStarts() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    let events = try session.apply(.deepLink("/master/settings"))
    #expect(describe(events) == ["stopped c2 detail reset", "started c3 settings sheet under c1"])
  }
}

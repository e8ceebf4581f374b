import NavJSON
import Testing

@testable import NavigationCore

@Suite("PUT state: reconciling the visible path")
struct PathReconcileTests {
  func entry(_ route: String, _ params: JSONObject, _ presentation: Presentation) -> PathEntry {
    PathEntry(route: route, params: params, presentation: presentation)
  }

  func entry(_ route: String, _ presentation: Presentation) -> PathEntry {
    PathEntry(route: route, presentation: presentation)
  }

  @Test("the common prefix keeps its ids; the rest stops before the new ones start")
  func commonPrefix() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    try session.apply(.push(detail(2)))
    let events = try session.apply(
      .setPath([
        entry("master", .root), entry("detail", ["id": 1], .push),
        entry("detail", ["id": 9], .push), entry("settings", .sheet),
      ]))
    #expect(
      describe(events) == [
        "stopped c3 detail reset", "started c4 detail push under c2",
        "started c5 settings sheet under c4",
      ])
    #expect(session.state.visiblePath.map(\.description) == ["c1", "c2", "c4", "c5"])
  }

  @Test("the same path changes nothing; a shorter one stops the tail")
  func samePathAndShorter() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    let before = session.state
    let same = try session.apply(
      .setPath([entry("master", .root), entry("detail", ["id": 1], .push)]))
    #expect(same.isEmpty)
    #expect(sameState(before, session.state))
    let shorter = try session.apply(.setPath([entry("master", .root)]))
    #expect(describe(shorter) == ["stopped c2 detail reset"])
  }

  @Test("a different root replaces the whole tree (reason reset)")
  func newRoot() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    let events = try session.apply(
      .setPath([entry("login", .root), entry("forgotPassword", .sheet)]))
    #expect(
      describe(events) == [
        "stopped c2 detail reset", "stopped c1 master reset", "started c3 login root under -",
        "started c4 forgotPassword sheet under c3",
      ])
  }

  @Test("tab entries select tabs; a path ending at a container shows its selected tab")
  func tabs() throws {
    var session = try Fixture(root: "tabs")
    let events = try session.apply(
      .setPath([entry("tabs", .root), entry("profile", .tab), entry("settings", .sheet)]))
    #expect(describe(events) == ["tab c1 2 profile", "started c5 settings sheet under c4"])
    let back = try session.apply(.setPath([entry("tabs", .root)]))
    #expect(describe(back) == ["stopped c5 settings reset"])
    #expect(session.routes == ["tabs", "profile"])
  }

  @Test("params of an entry are normalized before comparing: defaults count as given")
  func normalizedParams() throws {
    var session = try Fixture(root: "tabs")
    let events = try session.apply(
      .setPath([entry("tabs", .root), entry("search", ["query": ""], .tab)]))
    #expect(describe(events) == ["tab c1 1 search"])
  }

  @Test("invalid lists are refused whole")
  func refusals() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    session.refuse(.setPath([]), .invalidPath)
    session.refuse(.setPath([entry("master", .push)]), .invalidPath)
    session.refuse(.setPath([entry("detail", ["id": 1], .root)]), .notARootRoute)
    session.refuse(.setPath([entry("master", .root), entry("master", .root)]), .invalidPath)
    session.refuse(.setPath([entry("master", .root), entry("login", .push)]), .routeNotAllowed)
    session.refuse(
      .setPath([entry("master", .root), entry("settings", .push)]), .presentationNotAllowed)
    session.refuse(.setPath([entry("master", .root), entry("home", .tab)]), .invalidPath)
    session.refuse(
      .setPath([entry("tabs", .root), entry("search", ["query": "x"], .tab)]), .invalidPath)
    session.refuse(.setPath([entry("master", .root), entry("detail", .push)]), .invalidParams)
    session.refuse(.setPath([entry("nowhere", .root)]), .unknownRoute)
  }

  @Test("the coordinator limit applies to the result")
  func limit() throws {
    var session = try Fixture(limits: NavigationLimits(maxCoordinators: 3))
    session.refuse(
      .setPath([
        entry("master", .root), entry("detail", ["id": 1], .push),
        entry("detail", ["id": 2], .push),
        entry("detail", ["id": 3], .push),
      ]), .coordinatorLimit)
    try session.apply(
      .setPath([
        entry("master", .root), entry("detail", ["id": 1], .push),
        entry("detail", ["id": 2], .push),
      ]))
  }
}

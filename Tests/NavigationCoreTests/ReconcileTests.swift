import NavJSON
import Testing

@testable import NavigationCore

/// `PUT state`: make the visible path equal a list, keeping the longest common prefix.
@Suite("PUT state: reconciling the visible path")
struct ReconcileTests {
  /// Expects the visible path to show exactly `entries` (routes, params after defaults,
  /// presentations).
  func expectShows(
    _ session: Session, _ entries: [PathEntry], sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let shown = session.state.visiblePath.compactMap { session.state[$0] }
    #expect(shown.map(\.route) == entries.map(\.route), sourceLocation: sourceLocation)
    #expect(
      shown.map(\.presentation) == entries.map(\.presentation), sourceLocation: sourceLocation)
    for (node, wanted) in zip(shown, entries) {
      for member in wanted.params.members {
        #expect(node.params[member.key]?.json == member.value, sourceLocation: sourceLocation)
      }
    }
  }

  @Test("the common prefix keeps its ids; the rest stops before the new ones start")
  func commonPrefix() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))  // c2
    try session.apply(.push(detail(2)))  // c3
    try session.apply(.present(route("settings"), style: .sheet))  // c4
    let wanted = [
      entry("master", .root), entry("detail", ["id": 1], .push),
      entry("detail", ["id": 9], .push), entry("settings", .sheet),
    ]
    let events = try session.apply(.setPath(wanted))
    #expect(
      describe(events) == [
        "stopped c4 settings reset", "stopped c3 detail reset", "started c5 detail push under c2",
        "started c6 settings sheet under c5",
      ])
    #expect(Set(events.map(\.version)) == [5])
    #expect(session.path == ["c1", "c2", "c5", "c6"])
    expectShows(session, wanted)
  }

  @Test("a difference in params or presentation ends the common prefix")
  func prefixEndsAtDifference() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))  // c2
    try session.apply(.push(detail(2)))  // c3
    #expect(
      try session.events(
        .setPath([
          entry("master", .root), entry("detail", ["id": 3], .push),
          entry("detail", ["id": 2], .push),
        ])) == [
          "stopped c3 detail reset", "stopped c2 detail reset", "started c4 detail push under c1",
          "started c5 detail push under c4",
        ])
    #expect(
      try session.events(
        .setPath([entry("master", .root), entry("detail", ["id": 3], .sheet)])) == [
          "stopped c5 detail reset", "stopped c4 detail reset", "started c6 detail sheet under c1",
        ])
    #expect(session.presentations == [.root, .sheet])
  }

  @Test("the same path changes nothing; a shorter one stops the tail")
  func samePathAndShorter() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    let before = Snapshot(session.state)
    #expect(
      try session.apply(.setPath([entry("master", .root), entry("detail", ["id": 1], .push)]))
        .isEmpty)
    #expect(Snapshot(session.state) == before)
    #expect(try session.events(.setPath([entry("master", .root)])) == ["stopped c2 detail reset"])
    #expect(session.path == ["c1"])
  }

  @Test("a different root replaces the whole tree, reason reset")
  func newRoot() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    #expect(
      try session.events(.setPath([entry("login", .root), entry("forgotPassword", .sheet)])) == [
        "stopped c2 detail reset", "stopped c1 master reset", "started c3 login root under -",
        "started c4 forgotPassword sheet under c3",
      ])
    #expect(session.state.rootID == c(3))
    #expect(session.state.liveCount == 2)
  }

  @Test("tab entries select tabs and continue inside them")
  func tabEntries() throws {
    var session = try Session(root: "tabs")
    let wanted = [entry("tabs", .root), entry("profile", .tab), entry("settings", .sheet)]
    #expect(
      try session.events(.setPath(wanted)) == [
        "tab c1 2 profile", "started c5 settings sheet under c4",
      ])
    expectShows(session, wanted)
    #expect(
      try session.events(
        .setPath([entry("tabs", .root), entry("home", .tab), entry("detail", ["id": 1], .push)]))
        == ["tab c1 0 home", "started c6 detail push under c2"])
    // The profile sheet stays alive under its hidden tab.
    #expect(session[5]?.route == "settings")
  }

  @Test("a tab entry clears what hides the tabs of its container")
  func tabEntryClearsContainer() throws {
    var session = try Session(root: "tabs")
    try session.apply(.push(detail(1), target: c(1)))  // c5 covers the tabs
    #expect(session.routes == ["tabs", "detail"])
    #expect(
      try session.events(.setPath([entry("tabs", .root), entry("search", .tab)])) == [
        "stopped c5 detail reset", "tab c1 1 search",
      ])
    #expect(session.path == ["c1", "c3"])
  }

  @Test("a path ending at a tab container shows its selected tab, and nothing past it")
  func endsAtContainer() throws {
    var session = try Session(root: "tabs")
    try session.apply(.selectTab(.route("profile")))
    try session.apply(.present(route("settings"), style: .sheet))  // c5
    #expect(try session.events(.setPath([entry("tabs", .root)])) == ["stopped c5 settings reset"])
    #expect(session.routes == ["tabs", "profile"])
    var master = try Session()
    try master.apply(.present(route("settings"), style: .sheet))  // c2
    try master.apply(.push(route("tabs")))  // c3, tabs c4 c5 c6
    try master.apply(.push(detail(1)))  // c7 on home c4
    #expect(
      try master.events(
        .setPath([entry("master", .root), entry("settings", .sheet), entry("tabs", .push)]))
        == ["stopped c7 detail reset"])
    #expect(master.routes == ["master", "settings", "tabs", "home"])
  }

  @Test("params are normalized before comparing: defaults count as given")
  func normalizedParams() throws {
    var session = try Session(root: "tabs")
    #expect(
      try session.events(.setPath([entry("tabs", .root), entry("search", ["query": ""], .tab)]))
        == ["tab c1 1 search"])
    var master = try Session()
    try master.apply(.push(detail(4)))
    #expect(
      try master.apply(.setPath([entry("master", .root), entry("detail", ["id": 4.0], .push)]))
        .isEmpty)
  }

  @Test("invalid lists are refused whole, with a code")
  func refusals() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    session.refuse(.setPath([]), .invalidPath)
    // The first entry must be presented as root, and its route must be one that may be a root.
    session.refuse(.setPath([entry("master", .push)]), .invalidPath)
    session.refuse(.setPath([entry("detail", ["id": 1], .root)]), .notARootRoute)
    session.refuse(.setPath([entry("settings", .root)]), .notARootRoute)
    session.refuse(.setPath([entry("home", .root)]), .notARootRoute)
    session.refuse(.setPath([entry("master", .root), entry("master", .root)]), .invalidPath)
    // Tabs: only of the container before them.
    session.refuse(.setPath([entry("master", .root), entry("home", .tab)]), .invalidPath)
    session.refuse(.setPath([entry("login", .root), entry("home", .tab)]), .invalidPath)
    session.refuse(
      .setPath([entry("tabs", .root), entry("home", .tab), entry("search", .tab)]), .invalidPath)
    // The rules of push and present.
    session.refuse(.setPath([entry("master", .root), entry("login", .push)]), .routeNotAllowed)
    session.refuse(
      .setPath([
        entry("scene1", .root), entry("scene2", ["text": "a"], .push),
        entry("scene3", ["text": "b"], .sheet),
      ]),
      .routeNotAllowed)
    session.refuse(
      .setPath([entry("master", .root), entry("settings", .push)]), .presentationNotAllowed)
    session.refuse(
      .setPath([
        entry("master", .root), entry("detail", ["id": 1], .fullScreenCover),
        entry("settings", .fullScreenCover),
      ]),
      .presentationNotAllowed)
    session.refuse(.setPath([entry("master", .root), entry("detail", .push)]), .invalidParams)
    session.refuse(
      .setPath([entry("master", .root), entry("detail", ["id": "x"], .push)]), .invalidParams)
    session.refuse(.setPath([entry("nowhere", .root)]), .unknownRoute)
    session.refuse(.setPath([entry("master", .root), entry("nowhere", .push)]), .unknownRoute)
    #expect(session.routes == ["master", "detail"])
  }

  @Test("the coordinator limit applies to the result")
  func limit() throws {
    var session = try Session(limits: NavigationLimits(maxCoordinators: 3))
    let three = [
      entry("master", .root), entry("detail", ["id": 1], .push),
      entry("detail", ["id": 2], .push),
    ]
    session.refuse(.setPath(three + [entry("detail", ["id": 3], .push)]), .coordinatorLimit)
    session.refuse(.setPath([entry("tabs", .root)]), .coordinatorLimit)
    try session.apply(.setPath(three))
    // Stops count before the limit is judged: swapping the tail fits.
    try session.apply(.setPath(Array(three.prefix(2)) + [entry("detail", ["id": 5], .push)]))
    #expect(session.state.liveCount == 3)
  }
}

import NavJSON
import Testing

@testable import NavigationCore

@Suite("Leave guards")
struct LeaveGuardTests {
  /// master c1, detail c2 with a guard.
  static func guarded() throws -> Session {
    var session = try Session()
    try session.apply(.push(detail(1)))
    #expect(try session.events(.setLeaveGuard(c(2), reason: "unsaved")) == ["guard c2 unsaved"])
    return session
  }

  @Test("setting and clearing a guard are changes; the same again is none")
  func setAndClear() throws {
    var session = try Self.guarded()
    let version = session.state.version
    #expect(try session.events(.setLeaveGuard(c(2), reason: "unsaved")) == [])
    #expect(session.state.version == version)
    #expect(session.state.leaveGuard(of: c(2)) == "unsaved")
    #expect(try session.events(.setLeaveGuard(c(2), reason: "other")) == ["guard c2 other"])
    #expect(try session.events(.setLeaveGuard(c(2), reason: nil)) == ["guard c2 -"])
    #expect(try session.events(.setLeaveGuard(c(2), reason: nil)) == [])
    #expect(session.state.leaveGuards.isEmpty)
  }

  @Test("a guard goes on a live coordinator, with a reason of 1 to 200 characters")
  func refusals() throws {
    var session = try Self.guarded()
    session.refuse(.setLeaveGuard(c(9), reason: "x"), .unknownCoordinator)
    session.refuse(.setLeaveGuard(c(2), reason: ""), .invalidRequest)
    session.refuse(
      .setLeaveGuard(c(1), reason: String(repeating: "é", count: 201)), .invalidRequest)
    try session.apply(.setLeaveGuard(c(1), reason: String(repeating: "é", count: 200)))
    try session.apply(.discarding(.pop()))
    session.refuse(.setLeaveGuard(c(2), reason: "x"), .coordinatorStopped)
  }

  @Test(
    "every way of leaving a guarded screen is refused without discard",
    arguments: [
      Command.pop(), .pop(.toRoot), .back(), .replace(detail(2)),
      .setPath([entry("master", .root)]), .deepLink("/master/detail/3"),
    ])
  func blocked(command: Command) throws {
    var session = try Self.guarded()
    let refusal = session.refuse(command, .leaveBlocked)
    #expect(refusal?.details == .leaveBlocked(coordinator: c(2), reason: "unsaved"))
    #expect(refusal?.kind == .conflict)
    // With discard it goes, and the guard goes with its coordinator.
    try session.apply(.discarding(command))
    #expect(session.state[c(2)] == nil)
    #expect(session.state.leaveGuards.isEmpty)
  }

  @Test("what does not stop the guarded screen needs no discard")
  func notBlocked() throws {
    var session = try Self.guarded()
    try session.apply(.push(detail(2)))
    try session.apply(.pop())
    try session.apply(.setPath([entry("master", .root), entry("detail", ["id": 1], .push)]))
    try session.apply(.present(route("settings"), style: .sheet))
    try session.apply(.dismiss())
    #expect(session.state.leaveGuard(of: c(2)) == "unsaved")
  }

  @Test("a dismiss meets a guard anywhere in the modal flow it stops")
  func dismissBlocked() throws {
    var session = try Session()
    try session.apply(.present(route("settings"), style: .sheet))  // c2
    try session.apply(.push(detail(1)))  // c3 under the sheet
    try session.apply(.setLeaveGuard(c(2), reason: "draft"))
    #expect(session.state.allowed.dismiss == false)
    #expect(session.state.allowed.back == true)  // pops c3, which has no guard
    // The dismiss is what it holds back.
    #expect(session.state.allowed.leaveGuard == LeaveGuard(coordinator: c(2), reason: "draft"))
    try session.apply(.setLeaveGuard(c(3), reason: "form"))
    let refusal = session.refuse(.dismiss(), .leaveBlocked)
    #expect(refusal?.details == .leaveBlocked(coordinator: c(3), reason: "form"))
    session.refuse(.dismiss(.all), .leaveBlocked)
    session.refuse(.dismiss(.coordinator(c(2))), .leaveBlocked)
    #expect(session.state.allowed.leaveGuard == LeaveGuard(coordinator: c(3), reason: "form"))
    try session.apply(.discarding(.dismiss()))
    #expect(session.routes == ["master"])
  }

  @Test("a batch is refused at the op that meets a guard, unless it or the op says discard")
  func batches() throws {
    var session = try Self.guarded()
    session.refuse(.batch([.push(detail(3)), .pop(), .pop()]), .leaveBlocked, opIndex: 2)
    var discardOp = session
    try discardOp.apply(.batch([.push(detail(3)), .pop(), .discarding(.pop())]))
    #expect(discardOp.routes == ["master"])
    var discardAll = session
    try discardAll.apply(.discarding(.batch([.pop(), .push(detail(5))])))
    #expect(discardAll.routes == ["master", "detail"])
  }

  @Test("a teardown, the session's end and a lost requirement go through a guard")
  func alwaysProceed() throws {
    var torn = try Self.guarded()
    #expect(try torn.events(.teardown(c(2))) == ["stopped c2 detail teardown"])
    #expect(torn.state.leaveGuards.isEmpty)
    var ended = try Self.guarded()
    let events = describe(ended.state.end(reason: .expired))
    #expect(
      events == [
        "stopped c2 detail sessionEnded", "stopped c1 master sessionEnded", "ended expired",
      ])
    #expect(ended.state.leaveGuards.isEmpty)
  }

  @Test("allowed says what goes without discard and names the guard that holds back the rest")
  func affordances() throws {
    var session = try Self.guarded()
    var allowed = session.state.allowed
    #expect(!allowed.pop && !allowed.back && !allowed.dismiss)
    #expect(allowed.replace.isEmpty)
    #expect(allowed.push == ["detail"])
    #expect(allowed.leaveGuard == LeaveGuard(coordinator: c(2), reason: "unsaved"))
    try session.apply(.setLeaveGuard(c(2), reason: nil))
    allowed = session.state.allowed
    #expect(allowed.pop && allowed.back && allowed.leaveGuard == nil)
    #expect(!allowed.replace.isEmpty)
    // A guard on a screen under the top blocks nothing the top's own ops do.
    try session.apply(.setLeaveGuard(c(1), reason: "root"))
    #expect(session.state.allowed.pop && session.state.allowed.leaveGuard == nil)
  }

  @Test("a graph without guards and a session without leave guards cost no guard work")
  func fastPath() throws {
    let session = try Session()
    #expect(!session.state.graph.hasGuards)
    #expect(session.state.leaveGuards.isEmpty && session.state.pendingRequest == nil)
    #expect(demoGraph.guards.isEmpty)
  }
}

@Suite("Restoring guarded state")
struct GuardRestoreTests {
  @Test("a restored state keeps its context, pending request and leave guards, checked")
  func restore() throws {
    var session = try GuardedSession()
    try session.apply(.push(route("account")))  // signin c2, pending
    try session.apply(.setLeaveGuard(c(1), reason: "draft"))
    try session.apply(.setContext(["plan": .string("pro")]))
    let saved = session.state
    let restored = try NavigationState(
      restoring: gatedGraph, limits: saved.limits, coordinators: saved.coordinators.values,
      rootID: saved.rootID, version: saved.version, lastIssuedID: saved.lastIssuedID,
      lastSeq: saved.lastSeq, context: saved.context, pendingRequest: saved.pendingRequest,
      leaveGuards: saved.leaveGuards)
    #expect(restored.context == saved.context)
    #expect(restored.pendingRequest == saved.pendingRequest)
    #expect(restored.leaveGuards == saved.leaveGuards)
    // A guard or a pending request on a coordinator that is not live is damaged data.
    #expect(throws: NavigationError.self) {
      try NavigationState(
        restoring: gatedGraph, limits: saved.limits, coordinators: saved.coordinators.values,
        rootID: saved.rootID, version: saved.version, lastIssuedID: saved.lastIssuedID,
        lastSeq: saved.lastSeq, leaveGuards: [LeaveGuard(coordinator: c(7), reason: "x")])
    }
    var pending = saved.pendingRequest
    pending?.coordinator = c(7)
    #expect(throws: NavigationError.self) {
      try NavigationState(
        restoring: gatedGraph, limits: saved.limits, coordinators: saved.coordinators.values,
        rootID: saved.rootID, version: saved.version, lastIssuedID: saved.lastIssuedID,
        lastSeq: saved.lastSeq, pendingRequest: pending)
    }
  }
}

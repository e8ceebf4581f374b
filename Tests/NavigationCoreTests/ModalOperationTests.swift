import NavJSON
import Testing

@testable import NavigationCore

@Suite("present, dismiss and back")
struct ModalOperationTests {
  @Test("present a sheet and a full-screen cover; modals stack")
  func present() throws {
    var session = try Fixture(root: "login")
    let sheet = try session.apply(.present(route("forgotPassword"), style: .sheet))
    #expect(describe(sheet) == ["started c2 forgotPassword sheet under c1"])
    try session.apply(.dismiss())
    try session.apply(.present(route("signup"), style: .fullScreenCover))
    try session.apply(.push(route("dashboard")))
    try session.apply(.present(route("settings"), style: .sheet))
    #expect(session.routes == ["login", "signup", "dashboard", "settings"])
    #expect(
      session.state.visiblePath.compactMap { session.state[$0]?.presentation } == [
        .root, .fullScreenCover, .push, .sheet,
      ])
  }

  @Test("present refusals are those of push")
  func presentRefusals() throws {
    var session = try Fixture(root: "login")
    session.refuse(.present(route("nowhere"), style: .sheet), .unknownRoute)
    session.refuse(.present(route("signup"), style: .sheet), .presentationNotAllowed)
    session.refuse(.present(route("settings"), style: .sheet), .routeNotAllowed)
    var scene = try Fixture(root: "scene1")
    scene.refuse(.present(route("scene3"), style: .sheet), .invalidParams)
    var small = try Fixture(root: "login", limits: NavigationLimits(maxCoordinators: 1))
    small.refuse(.present(route("forgotPassword"), style: .sheet), .coordinatorLimit)
  }

  @Test("dismiss stops the modal flow that holds the active coordinator, with its pushes")
  func dismissCurrent() throws {
    var session = try Fixture(root: "login")
    try session.apply(.present(route("signup"), style: .fullScreenCover))
    try session.apply(.push(route("dashboard")))
    let events = try session.apply(.dismiss(result: "welcome"))
    #expect(
      describe(events) == [
        "stopped c3 dashboard dismiss", "stopped c2 signup dismiss", #"resumed c1 "welcome""#,
      ])
    session.refuse(.dismiss(), .nothingToDismiss)
  }

  @Test("dismiss by id: a modal only")
  func dismissByID() throws {
    var session = try Fixture()
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("settings"), style: .sheet))
    session.refuse(.dismiss(.coordinator(CoordinatorID(2))), .notAModal)
    session.refuse(.dismiss(.coordinator(CoordinatorID(50))), .unknownCoordinator)
    let events = try session.apply(.dismiss(.coordinator(CoordinatorID(3))))
    #expect(describe(events) == ["stopped c3 settings dismiss"])
  }

  @Test("dismiss all stops every modal, including ones under other tabs")
  func dismissAll() throws {
    var session = try Fixture(root: "tabs")
    try session.apply(.present(route("settings"), style: .sheet))
    try session.apply(.dismiss())
    try session.apply(.selectTab(.route("profile")))
    try session.apply(.present(route("settings"), style: .sheet))
    try session.apply(.selectTab(.route("home")))
    // The tab change is hidden by nothing: home is active, the profile sheet stays alive.
    #expect(session.routes == ["tabs", "home"])
    try session.apply(.present(route("settings"), style: .sheet))
    let events = try session.apply(.dismiss(.all))
    #expect(events.count == 2)
    #expect(
      events.allSatisfy {
        if case .stopped(_, "settings", .dismiss) = $0.kind { true } else { false }
      })
    session.refuse(.dismiss(.all), .nothingToDismiss)
  }

  @Test("back pops when the active flow has a push, else dismisses, else is refused")
  func back() throws {
    var session = try Fixture()
    session.refuse(.back(), .nothingToGoBackTo)
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("settings"), style: .sheet))
    let dismissed = try session.apply(.back(result: true))
    #expect(describe(dismissed) == ["stopped c3 settings dismiss", "resumed c2 true"])
    let popped = try session.apply(.back())
    #expect(describe(popped) == ["stopped c2 detail pop"])
    session.refuse(.back(), .nothingToGoBackTo)
  }

  @Test("back on a tab inside no modal is refused; a tab cannot be popped")
  func backOnTab() throws {
    var session = try Fixture(root: "tabs")
    session.refuse(.back(), .nothingToGoBackTo)
    session.refuse(.pop(), .nothingToPop)
  }
}

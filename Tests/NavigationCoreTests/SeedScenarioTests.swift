import NavJSON
import Testing

@testable import NavigationCore

/// The three apps of the articles the spec grew from, as sequences of core operations.
@Suite("the seeds' apps")
struct SeedScenarioTests {
  @Test("master/detail: a detail pushed from master presents settings as a sheet")
  func masterDetail() throws {
    var app = try Fixture()
    try app.apply(.push(detail(1)))
    try app.apply(.present(route("settings"), style: .sheet))
    #expect(app.routes == ["master", "detail", "settings"])
    #expect(app.active?.presentation == .sheet)
    #expect(app.active?.parent == CoordinatorID(2))
    try app.apply(.dismiss())
    try app.apply(.pop())
    #expect(app.routes == ["master"])
    // master presents settings itself too.
    try app.apply(.present(route("settings"), style: .sheet))
    #expect(app.active?.parent == CoordinatorID(1))
  }

  @Test("scene1 passes text to scene2 by push and to scene3 by sheet, and nothing else")
  func scenes() throws {
    var app = try Fixture(root: "scene1")
    try app.apply(.push(route("scene2", ["text": "from scene1"])))
    #expect(app.active?.params == ["text": .string("from scene1")])
    try app.apply(.pop())
    try app.apply(.present(route("scene3", ["text": "as a sheet"]), style: .sheet))
    #expect(app.active?.params == ["text": .string("as a sheet")])
    try app.apply(.dismiss())
    app.refuse(.present(route("scene2", ["text": "x"]), style: .sheet), .presentationNotAllowed)
    app.refuse(.push(route("scene3", ["text": "x"])), .presentationNotAllowed)
    app.refuse(
      .present(route("scene3", ["text": "x"]), style: .fullScreenCover), .presentationNotAllowed)
    app.refuse(.push(detail(1)), .routeNotAllowed)
    app.refuse(.push(route("scene2", ["text": 5])), .invalidParams)
    try app.apply(.push(route("scene2", ["text": "x"])))
    app.refuse(.push(route("scene2", ["text": "y"])), .routeNotAllowed)
  }

  @Test("login: forgotPassword sheet, signup cover, dashboard push, pop, pop to root")
  func login() throws {
    var app = try Fixture(root: "login")
    try app.apply(.present(route("forgotPassword"), style: .sheet))
    app.refuse(.push(route("dashboard")), .routeNotAllowed)
    try app.apply(.dismiss())
    try app.apply(.present(route("signup"), style: .fullScreenCover))
    try app.apply(.push(route("dashboard")))
    try app.apply(.dismiss())
    try app.apply(.push(route("dashboard")))
    app.refuse(.push(route("dashboard")), .routeNotAllowed)
    try app.apply(.present(route("settings"), style: .sheet))
    app.refuse(.pop(), .nothingToPop)
    try app.apply(.back())
    try app.apply(.pop())
    #expect(app.routes == ["login"])
    try app.apply(.push(route("dashboard")))
    try app.apply(.pop(.toRoot))
    #expect(app.routes == ["login"])
    #expect(app.state.liveCount == 1)
  }
}

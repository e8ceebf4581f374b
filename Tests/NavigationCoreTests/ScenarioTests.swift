import NavJSON
import Testing

@testable import NavigationCore

/// The three apps the spec grew from, as a client would drive them.
@Suite("the seeds' apps")
struct ScenarioTests {
  @Test("master/detail: push details, a settings sheet from master or a detail, back out")
  func masterDetail() throws {
    var app = try Session()
    #expect(try app.events(.push(detail(1))) == ["started c2 detail push under c1"])
    // A detail pushes another detail from itself.
    #expect(try app.events(.push(detail(2))) == ["started c3 detail push under c2"])
    #expect(
      try app.events(.present(route("settings"), style: .sheet)) == [
        "started c4 settings sheet under c3"
      ])
    #expect(app.routes == ["master", "detail", "detail", "settings"])
    #expect(app.presentations == [.root, .push, .push, .sheet])
    // While the sheet shows, a pop has nothing to pop in the sheet's flow.
    app.refuse(.pop(), .nothingToPop)
    app.refuse(.present(route("settings"), style: .fullScreenCover), .presentationNotAllowed)
    #expect(
      try app.events(.dismiss(result: ["theme": "dark"])) == [
        "stopped c4 settings dismiss", #"resumed c3 {"theme":"dark"}"#,
      ])
    #expect(try app.events(.pop(.toRoot)) == ["stopped c3 detail pop", "stopped c2 detail pop"])
    app.refuse(.push(route("login")), .routeNotAllowed)
    // master presents settings itself too.
    #expect(
      try app.events(.present(route("settings"), style: .sheet)) == [
        "started c5 settings sheet under c1"
      ])
    try app.apply(.back())
    #expect(app.routes == ["master"])
    #expect(app.state.liveCount == 1)
  }

  @Test("scene1 passes text to scene2 by push and to scene3 by sheet, and nothing else")
  func scenes() throws {
    var app = try Session(root: "scene1")
    try app.apply(.push(route("scene2", ["text": "from scene1"])))
    #expect(app.active?.route == "scene2")
    #expect(app.active?.params == ["text": .string("from scene1")])
    // scene2 shows nothing further.
    app.refuse(.push(route("scene2", ["text": "again"])), .routeNotAllowed)
    app.refuse(.present(route("scene3", ["text": "x"]), style: .sheet), .routeNotAllowed)
    try app.apply(.pop())
    try app.apply(.present(route("scene3", ["text": "as a sheet"]), style: .sheet))
    #expect(app.active?.params == ["text": .string("as a sheet")])
    #expect(app.active?.presentation == .sheet)
    app.refuse(.push(route("scene2", ["text": "x"])), .routeNotAllowed)
    try app.apply(.dismiss())
    // Refused: scene2 as a sheet, scene3 pushed or as a cover, anything else from scene1.
    app.refuse(.present(route("scene2", ["text": "x"]), style: .sheet), .presentationNotAllowed)
    app.refuse(
      .present(route("scene2", ["text": "x"]), style: .fullScreenCover), .presentationNotAllowed)
    app.refuse(.push(route("scene3", ["text": "x"])), .presentationNotAllowed)
    app.refuse(
      .present(route("scene3", ["text": "x"]), style: .fullScreenCover), .presentationNotAllowed)
    app.refuse(.push(detail(1)), .routeNotAllowed)
    app.refuse(.present(route("settings"), style: .sheet), .routeNotAllowed)
    app.refuse(.push(route("scene2")), .invalidParams)
    app.refuse(.push(route("scene2", ["text": 5])), .invalidParams)
    app.refuse(.push(route("scene2", ["text": "x", "more": "y"])), .invalidParams)
    // The text travels through a deep link too.
    try app.apply(.deepLink("/scene1/scene3/hi%20there"))
    #expect(app.active?.params == ["text": .string("hi there")])
    #expect(app.routes == ["scene1", "scene3"])
  }

  @Test("login: forgotPassword sheet, signup cover, dashboard push, pop and pop to root")
  func login() throws {
    var app = try Session(root: "login")
    #expect(
      try app.events(.present(route("forgotPassword"), style: .sheet)) == [
        "started c2 forgotPassword sheet under c1"
      ])
    // forgotPassword shows nothing ("next": []).
    app.refuse(.push(route("dashboard")), .routeNotAllowed)
    try app.apply(.dismiss())
    #expect(
      try app.events(.present(route("signup"), style: .fullScreenCover)) == [
        "started c3 signup fullScreenCover under c1"
      ])
    app.refuse(.present(route("forgotPassword"), style: .sheet), .routeNotAllowed)
    // Signing up leads to the dashboard inside the cover.
    try app.apply(.push(route("dashboard")))  // c4
    #expect(app.presentations == [.root, .fullScreenCover, .push])
    #expect(
      try app.events(.dismiss()) == [
        "stopped c4 dashboard dismiss", "stopped c3 signup dismiss",
      ])
    // Logging in pushes the dashboard, which may show settings only.
    try app.apply(.push(route("dashboard")))  // c5
    app.refuse(.push(route("dashboard")), .routeNotAllowed)
    app.refuse(.push(detail(1)), .routeNotAllowed)
    try app.apply(.present(route("settings"), style: .sheet))  // c6
    app.refuse(.pop(), .nothingToPop)
    try app.apply(.back())
    #expect(try app.events(.pop()) == ["stopped c5 dashboard pop"])
    #expect(app.routes == ["login"])
    try app.apply(.push(route("dashboard")))  // c7
    #expect(try app.events(.pop(.toRoot)) == ["stopped c7 dashboard pop"])
    #expect(app.routes == ["login"])
    app.refuse(.pop(.toRoot), .nothingToPop)
    #expect(app.state.liveCount == 1)
    #expect(app.state.lastIssuedID == 7)
  }
}

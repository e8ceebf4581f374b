import NavJSON
import Testing

@testable import NavigationCore

// Every row and every refusal of docs/behaviour.md section 4, plus the lifecycle rules of section 3.
// Session.apply checks the shape rules and the event rules after every operation (Helpers.swift);
// Session.refuse checks the code and that nothing changed.

@Suite("start")
struct StartTests {
  @Test("a session starts at the graph's root: c1, version 1, seq 1")
  func start() throws {
    let (state, events) = try NavigationState.start(graph: demoGraph)
    #expect(describe(events) == ["started c1 master root under -"])
    #expect(events.map(\.seq) == [1])
    #expect(events.map(\.version) == [1])
    #expect(state.version == 1)
    #expect(state.lastSeq == 1)
    #expect(state.rootID == c(1))
    #expect(state.activeID == c(1))
    #expect(state.visiblePath == [c(1)])
    #expect(state.liveCount == 1)
    #expect(state.invariantViolations() == [])
  }

  @Test("any route marked root may start a session; others, unknown ones and bad params may not")
  func startRefusals() throws {
    for root in ["login", "tabs", "scene1"] {
      let session = try Session(root: root)
      #expect(session.routes.first == root)
    }
    func code(_ request: RouteRequest, limit: Int = 256) -> NavigationError.Code? {
      do {
        _ = try NavigationState.start(
          graph: demoGraph, root: request, limits: NavigationLimits(maxCoordinators: limit))
        return nil
      } catch {
        return error.code
      }
    }
    #expect(code(detail(1)) == .notARootRoute)
    #expect(code(route("settings")) == .notARootRoute)
    #expect(code(route("nowhere")) == .unknownRoute)
    #expect(code(route("master", ["id": 1])) == .invalidParams)
    // A tab container starts its tabs with it: four coordinators.
    #expect(code(route("tabs"), limit: 3) == .coordinatorLimit)
    #expect(code(route("tabs"), limit: 4) == nil)
  }
}

@Suite("push")
struct PushTests {
  @Test("push adds a push child to the active coordinator and bumps the version once")
  func pushOnActive() throws {
    var session = try Session()
    let events = try session.apply(.push(detail(1)))
    #expect(describe(events) == ["started c2 detail push under c1"])
    #expect(events.map(\.version) == [2])
    #expect(events.map(\.seq) == [2])
    #expect(session.state.version == 2)
    #expect(session.routes == ["master", "detail"])
    #expect(session[1]?.children == [c(2)])
    #expect(session.active?.id == c(2))
    #expect(session.active?.parent == c(1))
    #expect(session.active?.presentation == .push)
    #expect(session.active?.params == ["id": .int(1)])
    #expect(try session.events(.push(detail(2))) == ["started c3 detail push under c2"])
  }

  @Test("with a target, the push goes onto that coordinator even when it is not visible")
  func pushTarget() throws {
    var session = try Session(root: "tabs")
    // c1 tabs, c2 home, c3 search, c4 profile
    #expect(
      try session.events(.push(detail(5), target: c(3))) == ["started c5 detail push under c3"])
    #expect(session.routes == ["tabs", "home"])
    try session.apply(.selectTab(.index(1)))
    #expect(session.routes == ["tabs", "search", "detail"])
    // The checks use the target's route, not the active one's.
    session.refuse(.push(route("settings"), target: c(4)), .presentationNotAllowed)
    session.refuse(.push(detail(1), target: c(4)), .routeNotAllowed)
  }

  @Test("a target must have no push child and no modal child")
  func targetNotFree() throws {
    var session = try Session(root: "tabs")
    try session.apply(.push(detail(5), target: c(3)))
    session.refuse(.push(detail(6), target: c(3)), .targetNotFree)
    try session.apply(.present(route("settings"), style: .sheet))  // c6 on home c2
    session.refuse(.push(detail(6), target: c(2)), .targetNotFree)
    session.refuse(.push(detail(6), target: c(99)), .unknownCoordinator)
    try session.apply(.teardown(c(5)))
    session.refuse(.push(route("profile"), target: c(5)), .coordinatorStopped)
  }

  @Test("singleTop: pushing the route and params on top changes nothing, not even the version")
  func singleTop() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    let before = Snapshot(session.state)
    #expect(try session.apply(.push(detail(1), singleTop: true)).isEmpty)
    // Params are compared after normalization: 1.0 is the int 1.
    #expect(try session.apply(.push(route("detail", ["id": 1.0]), singleTop: true)).isEmpty)
    #expect(Snapshot(session.state) == before)
    #expect(session.state.version == 2)
    // Other params, or no singleTop, push.
    try session.apply(.push(detail(2), singleTop: true))
    try session.apply(.push(detail(2)))
    #expect(session.routes == ["master", "detail", "detail", "detail"])
    // With a target, "on top" is the target.
    var tabs = try Session(root: "tabs")
    #expect(try tabs.apply(.push(route("search"), target: c(3), singleTop: true)).isEmpty)
  }

  @Test("an unknown route is refused")
  func unknownRoute() throws {
    var session = try Session()
    session.refuse(.push(route("nowhere")), .unknownRoute)
    session.refuse(.push(route("")), .unknownRoute)
  }

  @Test("params of the wrong type, undeclared or missing are refused")
  func invalidParams() throws {
    var session = try Session()
    let missing = session.refuse(.push(route("detail")), .invalidParams)
    #expect(missing?.detail.contains("id") == true)
    session.refuse(.push(route("detail", ["id": "one"])), .invalidParams)
    session.refuse(.push(route("detail", ["id": "1"])), .invalidParams)
    session.refuse(.push(route("detail", ["id": 1.5])), .invalidParams)
    session.refuse(.push(route("detail", ["id": nil])), .invalidParams)
    session.refuse(.push(route("detail", ["id": true])), .invalidParams)
    session.refuse(.push(route("detail", ["id": [1]])), .invalidParams)
    session.refuse(.push(route("detail", ["id": 1, "extra": true])), .invalidParams)
    var scene = try Session(root: "scene1")
    scene.refuse(.push(route("scene2", ["text": 5])), .invalidParams)
    scene.refuse(.push(route("scene2")), .invalidParams)
  }

  @Test("declared defaults are filled in; integral numbers count as int")
  func defaults() throws {
    var session = try Session()
    try session.apply(.present(route("settings"), style: .sheet))  // settings may show anything
    try session.apply(.push(route("search")))
    #expect(session.active?.params == ["query": .string("")])
    try session.apply(.pop())
    try session.apply(.push(route("search", ["query": "shoes"])))
    #expect(session.active?.params == ["query": .string("shoes")])
    try session.apply(.push(route("detail", ["id": 3.0])))
    #expect(session.active?.params == ["id": .int(3)])
  }

  @Test("params of every type: conversion, defaults and refusals")
  func everyParamType() throws {
    let graph = try loadGraph(
      #"""
      {"name":"types","root":"home","routes":[
        {"name":"home"},
        {"name":"item","params":{
          "n":{"type":"number","required":true},
          "b":{"type":"bool","required":true},
          "s":{"type":"string","default":"x"},
          "i":{"type":"int","default":7},
          "o":{"type":"string"}}}]}
      """#)
    var (state, _) = try NavigationState.start(graph: graph)
    try applyChecked(.push(route("item", ["n": 2, "b": true])), to: &state)
    #expect(
      state[c(2)]?.params == ["n": .number(2), "b": .bool(true), "s": .string("x"), "i": .int(7)])
    try applyChecked(.pop(), to: &state)
    expectRefusal(.push(route("item", ["n": "2", "b": true])), on: &state, .invalidParams)
    expectRefusal(.push(route("item", ["n": 2, "b": 1])), on: &state, .invalidParams)
    expectRefusal(.push(route("item", ["n": 2, "b": "true"])), on: &state, .invalidParams)
    expectRefusal(.push(route("item", ["n": 2])), on: &state, .invalidParams)
    expectRefusal(.push(route("item", ["n": 2, "b": false, "i": 1.5])), on: &state, .invalidParams)
    try applyChecked(.push(route("item", ["n": 0.5, "b": false, "o": "set"])), to: &state)
    #expect(state[c(3)]?.params["n"] == .number(0.5))
    #expect(state[c(3)]?.params["o"] == .string("set"))
  }

  @Test("a route not in the parent's next is refused")
  func routeNotAllowed() throws {
    var session = try Session()
    session.refuse(.push(route("login")), .routeNotAllowed)
    session.refuse(.push(route("home")), .routeNotAllowed)
    try session.apply(.push(detail(1)))
    session.refuse(.push(route("master")), .routeNotAllowed)
    var scene = try Session(root: "scene1")
    try scene.apply(.push(route("scene2", ["text": "a"])))
    // scene2 has "next": []: nothing may be shown from it.
    scene.refuse(.push(route("scene2", ["text": "b"])), .routeNotAllowed)
  }

  @Test("a presentation the route does not allow is refused")
  func presentationNotAllowed() throws {
    var session = try Session()
    session.refuse(.push(route("settings")), .presentationNotAllowed)
    var login = try Session(root: "login")
    login.refuse(.push(route("signup")), .presentationNotAllowed)
    login.refuse(.push(route("forgotPassword")), .presentationNotAllowed)
  }

  @Test("the coordinator limit counts a tab container with its tabs")
  func coordinatorLimit() throws {
    var small = try Session(limits: NavigationLimits(maxCoordinators: 3))
    try small.apply(.push(detail(1)))
    try small.apply(.push(detail(2)))
    small.refuse(.push(detail(3)), .coordinatorLimit)
    try small.apply(.pop())
    try small.apply(.push(detail(3)))

    var tabs = try Session(limits: NavigationLimits(maxCoordinators: 5))
    try tabs.apply(.present(route("settings"), style: .sheet))
    tabs.refuse(.push(route("tabs")), .coordinatorLimit)  // 2 + 4 > 5
    var roomy = try Session(limits: NavigationLimits(maxCoordinators: 6))
    try roomy.apply(.present(route("settings"), style: .sheet))
    try roomy.apply(.push(route("tabs")))
    #expect(roomy.state.liveCount == 6)
    #expect(roomy.routes == ["master", "settings", "tabs", "home"])
  }
}

@Suite("pop")
struct PopTests {
  /// master c1 with details c2, c3, c4 pushed.
  func threeDeep() throws -> Session {
    var session = try Session()
    for id in 1...3 { try session.apply(.push(detail(id))) }
    return session
  }

  @Test("pop count stops the top count pushes of the active flow, deepest first")
  func popCount() throws {
    var session = try threeDeep()
    #expect(
      try session.events(.pop(.count(2))) == ["stopped c4 detail pop", "stopped c3 detail pop"])
    #expect(session.routes == ["master", "detail"])
    #expect(session.state[c(3)] == nil)
    #expect(try session.events(.pop()) == ["stopped c2 detail pop"])
    #expect(session.path == ["c1"])
  }

  @Test("popping more than the active flow holds is nothing_to_pop; count 0 is invalid_request")
  func popCountRefusals() throws {
    var session = try threeDeep()
    session.refuse(.pop(.count(4)), .nothingToPop)
    session.refuse(.pop(.count(0)), .invalidRequest)
    session.refuse(.pop(.count(-1)), .invalidRequest)
    try session.apply(.pop(.count(3)))
    session.refuse(.pop(), .nothingToPop)
  }

  @Test("pop to a coordinator stops everything above it in its flow")
  func popTo() throws {
    var session = try threeDeep()
    #expect(
      try session.events(.pop(.to(c(2)))) == ["stopped c4 detail pop", "stopped c3 detail pop"])
    #expect(session.active?.id == c(2))
    session.refuse(.pop(.to(c(2))), .nothingToPop)  // already the top
    #expect(try session.events(.pop(.to(c(1)))) == ["stopped c2 detail pop"])
  }

  @Test("pop to a coordinator outside the active flow is refused")
  func popToOutsideFlow() throws {
    var session = try threeDeep()
    try session.apply(.present(route("settings"), style: .sheet))  // c5 on c4: the active flow
    session.refuse(.pop(.to(c(2))), .notInActiveFlow)
    session.refuse(.pop(.to(c(1))), .notInActiveFlow)
    session.refuse(.pop(.to(c(77))), .unknownCoordinator)
    try session.apply(.push(detail(8)))  // c6
    try session.apply(.push(detail(9)))  // c7
    // Within the sheet's flow, the sheet is the head.
    #expect(
      try session.events(.pop(.to(c(5)))) == ["stopped c7 detail pop", "stopped c6 detail pop"])
    try session.apply(.dismiss())
    try session.apply(.pop())
    let stopped = session.refuse(.pop(.to(c(4))), .coordinatorStopped)
    #expect(stopped?.kind == .conflict)
  }

  @Test("pop to root stops every push of the active flow; with none it is nothing_to_pop")
  func popToRoot() throws {
    var session = try Session()
    session.refuse(.pop(.toRoot), .nothingToPop)
    for id in 1...3 { try session.apply(.push(detail(id))) }
    #expect(
      try session.events(.pop(.toRoot)) == [
        "stopped c4 detail pop", "stopped c3 detail pop", "stopped c2 detail pop",
      ])
    #expect(session.routes == ["master"])
    session.refuse(.pop(.toRoot), .nothingToPop)
  }

  @Test("pop to root in a modal flow pops only the modal's pushes")
  func popToRootInModal() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))  // c2
    try session.apply(.present(route("settings"), style: .sheet))  // c3
    session.refuse(.pop(.toRoot), .nothingToPop)
    try session.apply(.push(detail(2)))  // c4
    try session.apply(.push(detail(3)))  // c5
    #expect(
      try session.events(.pop(.toRoot)) == ["stopped c5 detail pop", "stopped c4 detail pop"])
    #expect(session.path == ["c1", "c2", "c3"])
  }

  @Test("a pop result is delivered as coordinator.resumed to the coordinator that becomes active")
  func popResult() throws {
    var session = try threeDeep()
    #expect(
      try session.events(.pop(result: ["picked": 7])) == [
        "stopped c4 detail pop", #"resumed c3 {"picked":7}"#,
      ])
    #expect(try session.events(.pop(result: .null)) == ["stopped c3 detail pop"])
    #expect(
      try session.events(.pop(.toRoot, result: "done")) == [
        "stopped c2 detail pop", #"resumed c1 "done""#,
      ])
  }

  @Test("a tab heads its own flow: pushes on it pop, the tab itself does not")
  func popOnTab() throws {
    var session = try Session(root: "tabs")
    session.refuse(.pop(), .nothingToPop)
    try session.apply(.push(detail(1)))  // c5 on home c2
    session.refuse(.pop(.count(2)), .nothingToPop)
    session.refuse(.pop(.to(c(1))), .notInActiveFlow)
    #expect(try session.events(.pop(.to(c(2)))) == ["stopped c5 detail pop"])
  }
}

@Suite("present")
struct PresentTests {
  @Test("present a sheet and a full-screen cover on the active coordinator")
  func present() throws {
    var session = try Session(root: "login")
    #expect(
      try session.events(.present(route("forgotPassword"), style: .sheet)) == [
        "started c2 forgotPassword sheet under c1"
      ])
    #expect(session.active?.presentation == .sheet)
    try session.apply(.dismiss())
    #expect(
      try session.events(.present(route("signup"), style: .fullScreenCover)) == [
        "started c3 signup fullScreenCover under c1"
      ])
    #expect(session.presentations == [.root, .fullScreenCover])
  }

  @Test("modals stack: a modal can present another")
  func stacked() throws {
    var session = try Session(root: "login")
    try session.apply(.present(route("signup"), style: .fullScreenCover))  // c2
    try session.apply(.push(route("dashboard")))  // c3
    try session.apply(.present(route("settings"), style: .sheet))  // c4
    try session.apply(.present(route("settings"), style: .sheet))  // c5 on c4
    #expect(session.routes == ["login", "signup", "dashboard", "settings", "settings"])
    #expect(session.presentations == [.root, .fullScreenCover, .push, .sheet, .sheet])
    #expect(session[5]?.parent == c(4))
  }

  @Test("present is refused as push is")
  func presentRefusals() throws {
    var session = try Session(root: "login")
    session.refuse(.present(route("nowhere"), style: .sheet), .unknownRoute)
    session.refuse(.present(route("signup"), style: .sheet), .presentationNotAllowed)
    session.refuse(
      .present(route("forgotPassword"), style: .fullScreenCover), .presentationNotAllowed)
    session.refuse(.present(route("settings"), style: .sheet), .routeNotAllowed)
    session.refuse(.present(route("forgotPassword", ["x": 1]), style: .sheet), .invalidParams)
    var scene = try Session(root: "scene1")
    scene.refuse(.present(route("scene3"), style: .sheet), .invalidParams)
    scene.refuse(.present(route("scene2", ["text": "a"]), style: .sheet), .presentationNotAllowed)
    var small = try Session(root: "login", limits: NavigationLimits(maxCoordinators: 1))
    small.refuse(.present(route("forgotPassword"), style: .sheet), .coordinatorLimit)
  }
}

@Suite("dismiss")
struct DismissTests {
  /// master c1 > settings sheet c2 > detail push c3 > settings sheet c4.
  func stackedSheets() throws -> Session {
    var session = try Session()
    try session.apply(.present(route("settings"), style: .sheet))
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("settings"), style: .sheet))
    return session
  }

  @Test("dismiss stops the modal flow that holds the active coordinator, pushes included")
  func dismissCurrent() throws {
    var session = try Session(root: "login")
    try session.apply(.present(route("signup"), style: .fullScreenCover))
    try session.apply(.push(route("dashboard")))
    #expect(
      try session.events(.dismiss()) == [
        "stopped c3 dashboard dismiss", "stopped c2 signup dismiss",
      ])
    #expect(session.path == ["c1"])
  }

  @Test("dismiss with stacked modals stops only the innermost flow")
  func dismissInnermost() throws {
    var session = try stackedSheets()
    #expect(try session.events(.dismiss()) == ["stopped c4 settings dismiss"])
    #expect(session.active?.id == c(3))
    #expect(
      try session.events(.dismiss()) == [
        "stopped c3 detail dismiss", "stopped c2 settings dismiss",
      ])
  }

  @Test("dismiss by id stops that modal and everything under it")
  func dismissByID() throws {
    var session = try stackedSheets()
    #expect(
      try session.events(.dismiss(.coordinator(c(2)))) == [
        "stopped c4 settings dismiss", "stopped c3 detail dismiss", "stopped c2 settings dismiss",
      ])
    #expect(session.path == ["c1"])
  }

  @Test("dismiss by id of something that is not a modal is refused")
  func dismissNotAModal() throws {
    var session = try stackedSheets()
    session.refuse(.dismiss(.coordinator(c(3))), .notAModal)
    session.refuse(.dismiss(.coordinator(c(1))), .notAModal)
    session.refuse(.dismiss(.coordinator(c(50))), .unknownCoordinator)
    try session.apply(.dismiss())
    session.refuse(.dismiss(.coordinator(c(4))), .coordinatorStopped)
    var tabs = try Session(root: "tabs")
    tabs.refuse(.dismiss(.coordinator(c(3))), .notAModal)
  }

  @Test("dismiss all stops every modal, including ones under hidden tabs")
  func dismissAll() throws {
    var session = try Session(root: "tabs")
    try session.apply(.selectTab(.route("profile")))
    try session.apply(.present(route("settings"), style: .sheet))  // c5 on profile c4
    try session.apply(.selectTab(.route("home")))
    #expect(session.routes == ["tabs", "home"])
    try session.apply(.present(route("settings"), style: .sheet))  // c6 on home c2
    try session.apply(.present(route("settings"), style: .sheet))  // c7 on c6
    let events = try session.events(.dismiss(.all))
    #expect(events.count == 3)
    #expect(
      Set(events) == [
        "stopped c5 settings dismiss", "stopped c6 settings dismiss", "stopped c7 settings dismiss",
      ])
    #expect(session.state.coordinators.values.allSatisfy { !$0.presentation.isModal })
    #expect(session.state.liveCount == 4)
  }

  @Test("with no modal shown, dismiss and dismiss all are nothing_to_dismiss")
  func nothingToDismiss() throws {
    var session = try Session()
    session.refuse(.dismiss(), .nothingToDismiss)
    session.refuse(.dismiss(.all), .nothingToDismiss)
    try session.apply(.push(detail(1)))
    session.refuse(.dismiss(), .nothingToDismiss)
  }

  @Test("a dismiss result resumes the coordinator that becomes active")
  func dismissResult() throws {
    var session = try stackedSheets()
    #expect(
      try session.events(.dismiss(result: "saved")) == [
        "stopped c4 settings dismiss", #"resumed c3 "saved""#,
      ])
    try session.apply(.present(route("settings"), style: .sheet))  // c5
    #expect(
      try session.events(.dismiss(.all, result: [1, 2])) == [
        "stopped c5 settings dismiss", "stopped c3 detail dismiss", "stopped c2 settings dismiss",
        "resumed c1 [1,2]",
      ])
    try session.apply(.present(route("settings"), style: .sheet))  // c6
    #expect(
      try session.events(.dismiss(.coordinator(c(6)), result: false)) == [
        "stopped c6 settings dismiss", "resumed c1 false",
      ])
    // Dismissing a modal under another one: the coordinator that becomes active is resumed.
    var stacked = try stackedSheets()
    #expect(
      try stacked.events(.dismiss(.coordinator(c(2)), result: "x")) == [
        "stopped c4 settings dismiss", "stopped c3 detail dismiss", "stopped c2 settings dismiss",
        #"resumed c1 "x""#,
      ])
  }
}

@Suite("back")
struct BackTests {
  @Test("back pops when the active flow has a push, else dismisses, else is refused")
  func back() throws {
    var session = try Session()
    session.refuse(.back(), .nothingToGoBackTo)
    try session.apply(.push(detail(1)))  // c2
    try session.apply(.present(route("settings"), style: .sheet))  // c3
    try session.apply(.push(detail(2)))  // c4
    #expect(try session.events(.back()) == ["stopped c4 detail pop"])
    #expect(
      try session.events(.back(result: true)) == ["stopped c3 settings dismiss", "resumed c2 true"])
    #expect(try session.events(.back()) == ["stopped c2 detail pop"])
    session.refuse(.back(), .nothingToGoBackTo)
  }

  @Test("back on a bare tab is refused; on a tab inside a modal it dismisses the modal")
  func backOnTab() throws {
    var session = try Session(root: "tabs")
    session.refuse(.back(), .nothingToGoBackTo)
    var nested = try Session()
    try nested.apply(.present(route("settings"), style: .sheet))  // c2
    try nested.apply(.push(route("tabs")))  // c3 with tabs c4 c5 c6
    #expect(nested.routes == ["master", "settings", "tabs", "home"])
    #expect(
      try nested.events(.back()) == [
        "stopped c6 profile dismiss", "stopped c5 search dismiss", "stopped c4 home dismiss",
        "stopped c3 tabs dismiss", "stopped c2 settings dismiss",
      ])
  }
}

@Suite("replace")
struct ReplaceTests {
  @Test(
    "replace stops the top and starts the route in its place: new id, same parent and presentation")
  func replace() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    #expect(
      try session.events(.replace(detail(2))) == [
        "stopped c2 detail replace", "started c3 detail push under c1",
      ])
    #expect(session.active?.params == ["id": .int(2)])
    #expect(session[1]?.children == [c(3)])
    try session.apply(.push(detail(3)))  // c4 on c3
    #expect(
      try session.events(.replace(detail(5))) == [
        "stopped c4 detail replace", "started c5 detail push under c3",
      ])
    #expect(session[3]?.children == [c(5)])
    #expect(session.path == ["c1", "c3", "c5"])
  }

  @Test("replacing a modal keeps the modal presentation")
  func replaceModal() throws {
    var session = try Session()
    try session.apply(.present(route("settings"), style: .sheet))  // c2
    #expect(
      try session.events(.replace(detail(1))) == [
        "stopped c2 settings replace", "started c3 detail sheet under c1",
      ])
    var login = try Session(root: "login")
    try login.apply(.present(route("signup"), style: .fullScreenCover))
    // forgotPassword may only be a sheet: it cannot take a cover's place.
    login.refuse(.replace(route("forgotPassword")), .presentationNotAllowed)
  }

  @Test("replacing the root needs a route that may be a root")
  func replaceRoot() throws {
    var session = try Session()
    #expect(
      try session.events(.replace(route("login"))) == [
        "stopped c1 master replace", "started c2 login root under -",
      ])
    #expect(session.state.rootID == c(2))
    session.refuse(.replace(detail(1)), .notARootRoute)
    session.refuse(.replace(route("settings")), .notARootRoute)
    #expect(
      try session.events(.replace(route("tabs"))) == [
        "stopped c2 login replace", "started c3 tabs root under -", "started c4 home tab under c3",
        "started c5 search tab under c3", "started c6 profile tab under c3",
      ])
  }

  @Test("a tab cannot be replaced")
  func replaceTab() throws {
    var session = try Session(root: "tabs")
    session.refuse(.replace(route("profile")), .cannotReplaceTab)
    session.refuse(.replace(route("home")), .cannotReplaceTab)
  }

  @Test("replace is refused as push is")
  func replaceRefusals() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    session.refuse(.replace(route("nowhere")), .unknownRoute)
    session.refuse(.replace(route("detail")), .invalidParams)
    session.refuse(.replace(route("settings")), .presentationNotAllowed)
    session.refuse(.replace(route("login")), .routeNotAllowed)
    var small = try Session(limits: NavigationLimits(maxCoordinators: 3))
    small.refuse(.replace(route("tabs")), .coordinatorLimit)  // 1 - 1 + 4 > 3
  }
}

@Suite("select tab")
struct SelectTabTests {
  @Test("a tab container starts with one tab per tab route, in order, the first selected")
  func tabsStart() throws {
    let session = try Session(root: "tabs")
    #expect(
      describe(session.startEvents) == [
        "started c1 tabs root under -", "started c2 home tab under c1",
        "started c3 search tab under c1", "started c4 profile tab under c1",
      ])
    #expect(session[1]?.selectedTab == 0)
    #expect(session[1]?.children == [c(2), c(3), c(4)])
    #expect(session[3]?.params == ["query": .string("")])
    #expect(session.path == ["c1", "c2"])
  }

  @Test("select a tab by index or by route name")
  func selectTab() throws {
    var session = try Session(root: "tabs")
    #expect(try session.events(.selectTab(.route("profile"))) == ["tab c1 2 profile"])
    #expect(session[1]?.selectedTab == 2)
    #expect(session.routes == ["tabs", "profile"])
    #expect(try session.events(.selectTab(.index(1))) == ["tab c1 1 search"])
    #expect(session.routes == ["tabs", "search"])
  }

  @Test("reselecting the selected tab is a no-op")
  func reselect() throws {
    var session = try Session(root: "tabs")
    let before = Snapshot(session.state)
    #expect(try session.apply(.selectTab(.index(0))).isEmpty)
    #expect(try session.apply(.selectTab(.route("home"), container: c(1))).isEmpty)
    #expect(Snapshot(session.state) == before)
  }

  @Test("no tab container on the visible path is no_tab_container")
  func noContainer() throws {
    var session = try Session()
    session.refuse(.selectTab(.index(0)), .noTabContainer)
    session.refuse(.selectTab(.route("home")), .noTabContainer)
    var tabs = try Session(root: "tabs")
    tabs.refuse(.selectTab(.index(0), container: c(2)), .noTabContainer)
    tabs.refuse(.selectTab(.index(0), container: c(20)), .unknownCoordinator)
  }

  @Test("a tab that does not exist is no_such_tab")
  func noSuchTab() throws {
    var session = try Session(root: "tabs")
    session.refuse(.selectTab(.index(3)), .noSuchTab)
    session.refuse(.selectTab(.index(-1)), .noSuchTab)
    session.refuse(.selectTab(.route("settings")), .noSuchTab)
    session.refuse(.selectTab(.route("nowhere")), .noSuchTab)
  }

  @Test("the nearest container on the visible path is used; another can be named")
  func nearestAndExplicit() throws {
    var session = try Session(root: "tabs")
    try session.apply(.present(route("settings"), style: .sheet))  // c5 on home c2
    try session.apply(.push(route("tabs")))  // c6, tabs c7 c8 c9
    #expect(session.path == ["c1", "c2", "c5", "c6", "c7"])
    #expect(try session.events(.selectTab(.index(2))) == ["tab c6 2 profile"])
    #expect(session[1]?.selectedTab == 0)
    #expect(try session.events(.selectTab(.index(1), container: c(1))) == ["tab c1 1 search"])
    #expect(session.path == ["c1", "c3"])
  }
}

@Suite("teardown")
struct TeardownTests {
  @Test("teardown stops the coordinator and everything under it, deepest first")
  func cascade() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))  // c2
    try session.apply(.push(detail(2)))  // c3
    try session.apply(.present(route("settings"), style: .sheet))  // c4
    let events = try session.apply(.teardown(c(2)))
    #expect(
      describe(events) == [
        "stopped c4 settings teardown", "stopped c3 detail teardown", "stopped c2 detail teardown",
      ])
    #expect(events.map(\.version) == [5, 5, 5])
    #expect(session.routes == ["master"])
    #expect(session.state.liveCount == 1)
    #expect(session[1]?.children == [])
  }

  @Test("tearing down a tab container's presenter stops its tabs before it")
  func cascadeThroughTabs() throws {
    var session = try Session()
    try session.apply(.present(route("settings"), style: .sheet))  // c2
    try session.apply(.push(route("tabs")))  // c3, tabs c4 c5 c6
    try session.apply(.push(detail(1), target: c(5)))  // c7 on search
    let events = try session.events(.teardown(c(2)))
    #expect(events.count == 6)
    #expect(events.last == "stopped c2 settings teardown")
    #expect(
      events.firstIndex(of: "stopped c7 detail teardown")! < events.firstIndex(
        of: "stopped c5 search teardown")!)
    #expect(events.firstIndex(of: "stopped c3 tabs teardown") == 4)
    #expect(session.state.liveCount == 1)
  }

  @Test("the root and single tabs cannot be torn down")
  func refusals() throws {
    var session = try Session(root: "tabs")
    session.refuse(.teardown(c(1)), .cannotTearDownRoot)
    session.refuse(.teardown(c(3)), .cannotTearDownTab)
    let root = session.refuse(.teardown(c(1)), .cannotTearDownRoot)
    #expect(root?.kind == .conflict)
  }

  @Test("tearing down a stopped coordinator changes nothing; an id never issued is refused")
  func idempotent() throws {
    var session = try Session(root: "tabs")
    try session.apply(.present(route("settings"), style: .sheet))  // c5
    try session.apply(.teardown(c(5)))
    let before = Snapshot(session.state)
    #expect(try session.apply(.teardown(c(5))).isEmpty)
    #expect(Snapshot(session.state) == before)
    let unknown = session.refuse(.teardown(c(6)), .unknownCoordinator)
    #expect(unknown?.kind == .notFound)
    session.refuse(.teardown(c(0)), .unknownCoordinator)
    session.refuse(.teardown(c(-3)), .unknownCoordinator)
  }
}

@Suite("batch")
struct BatchTests {
  @Test("a batch applies its ops in order: one version bump, all their events")
  func batch() throws {
    var session = try Session()
    let events = try session.apply(
      .batch([.push(detail(1)), .present(route("settings"), style: .sheet), .back(result: 1)]))
    #expect(
      describe(events) == [
        "started c2 detail push under c1", "started c3 settings sheet under c2",
        "stopped c3 settings dismiss", "resumed c2 1",
      ])
    #expect(Set(events.map(\.version)) == [2])
    #expect(session.state.version == 2)
    #expect(events.map(\.seq) == [2, 3, 4, 5])
  }

  @Test("each op of a batch keeps its own order of stops before starts")
  func orderPerOp() throws {
    var session = try Session()
    #expect(
      try session.events(.batch([.push(detail(1)), .replace(detail(2))])) == [
        "started c2 detail push under c1", "stopped c2 detail replace",
        "started c3 detail push under c1",
      ])
  }

  @Test("a refused op refuses the whole batch with its index, and nothing changes")
  func refused() throws {
    var session = try Session()
    session.refuse(.batch([.push(detail(1)), .pop(), .pop()]), .nothingToPop, opIndex: 2)
    session.refuse(.batch([.push(route("nowhere"))]), .unknownRoute, opIndex: 0)
    session.refuse(
      .batch([.push(detail(1)), .push(detail(2)), .teardown(c(9))]), .unknownCoordinator,
      opIndex: 2)
    session.refuse(.batch([.back(), .batch([])]), .nothingToGoBackTo, opIndex: 0)
    #expect(session.state.lastIssuedID == 1)
    #expect(session.state.version == 1)
  }

  @Test("batches do not nest; an empty batch changes nothing")
  func nestingAndEmpty() throws {
    var session = try Session()
    session.refuse(.batch([.push(detail(1)), .batch([])]), .invalidRequest, opIndex: 1)
    #expect(try session.apply(.batch([])).isEmpty)
    #expect(session.state.version == 1)
  }
}

@Suite("end of session")
struct EndTests {
  @Test("ending stops everything, children before parents, then session.ended")
  func end() throws {
    var session = try Session()
    try session.apply(.push(detail(1)))
    try session.apply(.present(route("settings"), style: .sheet))
    let before = session.state
    let events = session.state.end(reason: .expired)
    #expect(
      describe(events) == [
        "stopped c3 settings sessionEnded", "stopped c2 detail sessionEnded",
        "stopped c1 master sessionEnded", "ended expired",
      ])
    checkEventRules(events, before: before, after: session.state, orderedByOperation: true)
    #expect(events.allSatisfy { $0.version == 4 })
    #expect(session.state.liveCount == 0)
    #expect(session.state.isEnded)
    #expect(session.state.visiblePath == [])
    #expect(session.state.activeID == nil)
    #expect(session.state.invariantViolations() == [])
  }

  @Test("a tab container's tabs stop before it; an ended session refuses everything")
  func endWithTabs() throws {
    var session = try Session(root: "tabs")
    let events = session.state.end(reason: .deleted)
    #expect(
      describe(events) == [
        "stopped c4 profile sessionEnded", "stopped c3 search sessionEnded",
        "stopped c2 home sessionEnded", "stopped c1 tabs sessionEnded", "ended deleted",
      ])
    #expect(session.state.end(reason: .deleted).isEmpty)
    session.refuse(.push(detail(1)), .sessionEnded)
    session.refuse(.teardown(c(2)), .sessionEnded)
    session.refuse(.batch([]), .sessionEnded)
  }
}

@Suite("event and id rules")
struct EventRuleTests {
  @Test("seq counts up by one and never repeats; ids are never reused after stops")
  func seqAndIDs() throws {
    var session = try Session(root: "tabs")
    var all = session.startEvents
    let commands: [Command] = [
      .push(detail(1)), .pop(), .present(route("settings"), style: .sheet), .dismiss(),
      .selectTab(.index(2)), .present(route("settings"), style: .sheet),
      .replace(route("settings")),
      .deepLink("/tabs/home/detail/2"), .teardown(c(9)), .setPath([entry("login", .root)]),
      .batch([.present(route("signup"), style: .fullScreenCover), .push(route("dashboard"))]),
    ]
    for command in commands { all += try session.apply(command) }
    all += session.state.end(reason: .deleted)
    #expect(all.map(\.seq) == Array(1...all.count))
    var started: [CoordinatorID] = []
    var versions: [Int] = []
    for event in all {
      if case .started(let id, _, _, _, _) = event.kind { started.append(id) }
      if versions.last != event.version { versions.append(event.version) }
    }
    #expect(started == (1...started.count).map(c))
    #expect(versions == Array(1...versions.count))
    let stopped = all.compactMap { event -> CoordinatorID? in
      if case .stopped(let id, _, _) = event.kind { id } else { nil }
    }
    #expect(stopped.sorted() == started)
  }

  @Test("applying returns the next state and leaves the original alone")
  func applying() throws {
    let session = try Session()
    let (next, events) = try session.state.applying(.push(detail(1)))
    #expect(describe(events) == ["started c2 detail push under c1"])
    #expect(next.version == 2)
    #expect(session.state.version == 1)
    #expect(session.state.liveCount == 1)
    do {
      _ = try session.state.applying(.pop())
      Issue.record("popped the root")
    } catch {
      #expect(error.code == .nothingToPop)
    }
  }

  @Test("refusal codes map to the HTTP kinds the spec names")
  func kinds() {
    let conflicts: [NavigationError.Code] = [
      .nothingToPop, .notInActiveFlow, .nothingToDismiss, .notAModal, .nothingToGoBackTo,
      .noTabContainer, .cannotTearDownRoot, .cannotTearDownTab,
    ]
    let unprocessable: [NavigationError.Code] = [
      .unknownRoute, .invalidParams, .routeNotAllowed, .presentationNotAllowed, .coordinatorLimit,
      .noSuchTab, .invalidPath, .noRouteForURL,
    ]
    #expect(conflicts.allSatisfy { $0.kind == .conflict })
    #expect(unprocessable.allSatisfy { $0.kind == .unprocessable })
    #expect(NavigationError.Code.unknownCoordinator.kind == .notFound)
    #expect(NavigationError.Code.nothingToPop.rawValue == "nothing_to_pop")
    #expect(NavigationError.Code.noRouteForURL.rawValue == "no_route_for_url")
    let refusal = NavigationError(.nothingToPop, "empty", opIndex: 2)
    #expect(refusal.description == "nothing_to_pop (op 2): empty")
  }

  @Test("coordinator ids read and print as c<number>")
  func coordinatorIDs() {
    #expect(CoordinatorID("c12") == c(12))
    #expect(c(12).description == "c12")
    for bad in ["c", "c0", "c01", "12", "C1", "c-1", "c1x", "c99999999999999999999", ""] {
      #expect(CoordinatorID(bad) == nil, "\(bad)")
    }
  }
}

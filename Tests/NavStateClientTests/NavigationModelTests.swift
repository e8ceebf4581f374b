import Foundation
import NavStateTestSupport
import Testing

@testable import NavStateClient

/// The seeds' three apps, played through NavigationModel as a SwiftUI app would drive it.
@MainActor
@Suite("NavigationModel")
struct NavigationModelTests {
  @Test("master/detail with a settings sheet; a swipe back and a swipe down")
  func masterDetail() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create()
    let model = NavigationModel(session: session, state: state)
    #expect(model.root?.route == "master")
    #expect(model.stack.isEmpty && model.sheet == nil)
    try await model.push("detail", params: ["id": 1])
    try await model.push("detail", params: ["id": 2])
    #expect(model.stack.map(\.params) == [["id": .int(1)], ["id": .int(2)]])
    try await model.present("settings")
    #expect(model.sheet?.root.route == "settings")
    #expect(model.allowed.dismiss)
    // The sheet is swiped down: setting it to nil dismisses it.
    model.sheet = nil
    #expect(await eventually { model.sheet == nil && model.state?.version == 5 })
    // A swipe back to the first detail: the second one's presenter is torn down.
    model.stack = Array(model.stack.prefix(1))
    #expect(await eventually { model.stack.count == 1 })
    let events = try await session.events(after: 0).events
    let teardowns = events.filter {
      if case .stopped(_, _, _, let reason) = $0 { reason == "teardown" } else { false }
    }
    #expect(teardowns.count == 1)
    #expect(model.lastError == nil)
  }

  @Test("scene1 pushes scene2 and presents scene3, passing text")
  func scenes() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create(root: "scene1")
    let model = NavigationModel(session: session, state: state)
    #expect(model.allowed.push == ["scene2"] && model.allowed.sheet == ["scene3"])
    try await model.push("scene2", params: ["text": "hello"])
    #expect(model.stack.last?.params["text"] == .string("hello"))
    try await model.back()
    try await model.present("scene3", params: ["text": "from scene1"])
    #expect(model.sheet?.root.params["text"] == .string("from scene1"))
    // scene1 may show nothing else: the service refuses, the model is unchanged.
    let refused = await #expect(throws: NavStateError.self) {
      try await model.push("detail", params: ["id": 1])
    }
    #expect(refused?.code == .routeNotAllowed)
    #expect(model.sheet != nil)
  }

  @Test("push, pop, pop to root, sheet and cover")
  func stackAndModals() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create()
    let model = NavigationModel(session: session, state: state)
    for id in 1...3 { try await model.push("detail", params: ["id": .int(Int64(id))]) }
    #expect(model.stack.count == 3)
    try await model.pop()
    #expect(model.stack.count == 2)
    try await model.popToRoot()
    #expect(model.stack.isEmpty)
    try await model.push("detail", params: ["id": 9])
    try await model.present("settings")
    try await model.present("signup", style: .fullScreenCover)
    #expect(model.modals.map(\.style) == [.sheet, .fullScreenCover])
    #expect(model.sheet?.root.route == "settings" && model.fullScreenCover == nil)
    try await model.dismiss()
    #expect(model.modals.count == 1)
    try await model.dismiss()
    #expect(model.modals.isEmpty && model.stack.count == 1)
    // The rest of the operations, each through the model.
    try await model.present("settings")
    try await model.present("signup", style: .fullScreenCover)
    try await model.dismissAll()
    #expect(model.modals.isEmpty)
    try await model.setPath([PathEntry("master"), PathEntry("detail", params: ["id": 1])])
    try await model.batch([.push("detail", params: ["id": 2]), .push("detail", params: ["id": 3])])
    #expect(model.stack.count == 3)
    try await model.pop(to: model.stack[0].id)
    #expect(model.stack.count == 1)
    try await model.replace("detail", params: ["id": 8])
    #expect(model.stack.last?.params["id"] == .int(8))
    try await model.tearDown(model.stack[0].id)
    #expect(model.stack.isEmpty)
    try await model.deepLink("myapp://tabs/search?query=shoes")
    #expect(model.selectedTab == "search" && model.root?.params["query"] == .string("shoes"))
  }

  @Test("tabs: the selected tab is a binding; each tab keeps its own stack")
  func tabs() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create(root: "tabs")
    let model = NavigationModel(session: session, state: state)
    #expect(model.selectedTab == "home" && model.allowed.tabs == ["home", "search", "profile"])
    try await model.push("detail", params: ["id": 1])
    #expect(model.root?.route == "home" && model.stack.count == 1)
    model.selectedTab = "search"
    #expect(await eventually { model.selectedTab == "search" })
    #expect(model.root?.route == "search" && model.stack.isEmpty)
    try await model.selectTab("home")
    #expect(model.stack.map(\.route) == ["detail"])
  }

  @Test("two models on one session stay in step through the stream")
  func twoModelsInStep() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create()
    let phone = NavigationModel(session: session, state: state)
    let tablet = NavigationModel(session: live.open(session, options: .init(sendIfMatch: false)))
    let following = Task { @MainActor in try await tablet.follow() }
    #expect(await eventually { tablet.isLive && tablet.state != nil })
    try await phone.push("detail", params: ["id": 5])
    #expect(await eventually { tablet.stack.map(\.route) == ["detail"] })
    try await tablet.present("settings")
    // The phone does not follow the stream: it learns on its next read.
    try await phone.refresh()
    #expect(phone.sheet?.root.route == "settings")
    following.cancel()
  }
}

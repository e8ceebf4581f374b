import Foundation
import NavStateTestSupport
import Testing

@testable import NavStateClient

/// A live navstate with a backend key, the app's side and the backend's.
struct BackendServer {
  let live: LiveServer
  let backend: NavStateBackend
  let folder: URL

  init(_ arguments: [String] = []) throws {
    folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("navstate-client-backend-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let key = "client-tests-backend-key-" + UUID().uuidString
    let keyFile = folder.appendingPathComponent("backend-keys")
    try Data((key + "\n").utf8).write(to: keyFile)
    live = try LiveServer(["--backend-key-file", keyFile.path] + arguments)
    backend = NavStateBackend(serverURL: live.server.url, transport: live.transport, key: key)
  }

  func stop() {
    live.server.stop()
    try? FileManager.default.removeItem(at: folder)
  }
}

/// Context, redirects, pending requests and leave guards against the real server (docs/behaviour.md section 9 to
/// 9.3), through NavStateBackend, NavStateSession and NavigationModel.
@Suite("Guards against a live server")
struct GuardLiveTests {
  @Test("a redirect to login keeps the dashboard pending; the backend's login applies it")
  @MainActor
  func redirectAndLogin() async throws {
    let server = try BackendServer()
    defer { server.stop() }
    let (session, state) = try await server.backend.createSession(graph: "zumry")
    #expect(state.context.isEmpty)
    // The root, dashboard, is closed: the session starts at its redirect, login, and the
    // creation waits as the pending request.
    #expect(state.path.map(\.route) == ["login"])
    let model = NavigationModel(session: session, state: state)
    let pending = try #require(model.pending)
    #expect(pending.route == "dashboard" && pending.op == "create")
    #expect(pending.coordinator == model.root?.id)
    #expect(model.allowed.redirects["dashboard"] == "login")
    // A closed route whose redirect cannot be shown where it would go is refused.
    let refused = await #expect(throws: NavStateError.self) { try await model.push("dashboard") }
    #expect(refused?.code == .requirementNotMet && refused?.route == "dashboard")
    #expect(refused?.missing == ["authenticated"])

    let login = try await server.backend.setContext(["authenticated": true], of: session.id)
    #expect(login.state.context == ["authenticated": true])
    #expect(login.state.pending == nil)
    #expect(login.state.path.last?.route == "dashboard")
    #expect(login.events.contains { if case .pendingApplied = $0 { true } else { false } })
    #expect(login.events.contains { if case .contextChanged = $0 { true } else { false } })
    try await model.refresh()
    #expect(model.context["authenticated"] == .bool(true) && model.pending == nil)

    // A logout closes the dashboard again: it stops (requirementLost).
    let logout = try await server.backend.patchContext(["authenticated": nil], of: session.id)
    #expect(logout.state.context.isEmpty)
    #expect(!logout.state.path.contains { $0.route == "dashboard" })
    #expect(
      logout.events.contains {
        if case .stopped(_, _, _, let reason) = $0 { reason == "requirementLost" } else { false }
      })
  }

  @Test("a route without a redirect is refused with the keys it misses")
  func requirementNotMet() async throws {
    let server = try BackendServer()
    defer { server.stop() }
    let (session, _) = try await server.backend.createSession(
      graph: "zumry", context: ["authenticated": true])
    let refused = await #expect(throws: NavStateError.self) {
      _ = try await session.present("profile")
    }
    #expect(refused?.code == .requirementNotMet && refused?.status == 403)
    #expect(refused?.route == "profile" && refused?.missing == ["roles"])
  }

  @Test("only the backend sets a context or creates with one")
  func backendOnly() async throws {
    let server = try BackendServer(["--session-creation", "backend"])
    defer { server.stop() }
    let anonymous = await #expect(throws: NavStateError.self) {
      _ = try await server.live.create(graph: "zumry")
    }
    #expect(anonymous?.code == .backendKeyRequired && anonymous?.status == 401)
    let (session, _) = try await server.backend.createSession(graph: "demo")
    // The app's token is not a backend key.
    let asApp = NavStateBackend(
      serverURL: server.live.server.url, transport: server.live.transport, key: session.token)
    let refused = await #expect(throws: NavStateError.self) {
      _ = try await asApp.setContext(["authenticated": true], of: session.id)
    }
    #expect(refused?.code == .backendOnly && refused?.status == 403)
    let invalid = await #expect(throws: NavStateError.self) {
      _ = try await server.backend.setContext(
        ["big": .string(String(repeating: "x", count: 5000))], of: session.id)
    }
    #expect(invalid?.code == .contextTooLarge)
    // The backend may drive any session without its token.
    let driven = server.backend.session(session.id)
    let pushed = try await driven.push("detail", params: ["id": 1])
    #expect(pushed.state.path.map(\.route) == ["master", "detail"])
  }

  @Test("a leave guard refuses back; the user agrees and it is retried with discard")
  @MainActor
  func leaveGuard() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let (session, state) = try await live.create()
    let model = NavigationModel(session: session, state: state)
    try await model.push("detail", params: ["id": 1])
    let editor = try #require(model.stack.last?.id)
    try await model.setLeaveGuard(on: editor, reason: "Unsaved draft")
    #expect(model.leaveGuards == [editor: "Unsaved draft"])
    #expect(!model.allowed.back && model.allowed.leaveGuard?.coordinator == editor)

    let refused = await #expect(throws: NavStateError.self) { try await model.back() }
    #expect(refused?.code == .leaveBlocked && refused?.coordinator == editor)
    #expect(refused?.reason == "Unsaved draft")
    #expect(model.leaveBlocked != nil && model.stack.count == 1)
    try await model.retryDiscarding()
    #expect(model.stack.isEmpty && model.leaveBlocked == nil && model.leaveGuards.isEmpty)

    // Cleared, a guard no longer refuses anything.
    try await model.push("detail", params: ["id": 2])
    let second = try #require(model.stack.last?.id)
    try await model.setLeaveGuard(on: second, reason: "Typing")
    try await model.clearLeaveGuard(on: second)
    #expect(model.leaveGuards.isEmpty && model.allowed.back)
    try await model.back()
    #expect(model.stack.isEmpty)
    let events = try await session.events().events
    #expect(
      events.filter { if case .leaveGuardChanged = $0 { true } else { false } }.count == 3)
  }

  @Test("the backend loads a graph version: a dry run, the load, a migration")
  func graphs() async throws {
    let server = try BackendServer()
    defer { server.stop() }
    let (session, _) = try await server.backend.createSession(graph: "demo")
    _ = try await session.present("settings")
    let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("../../Sources/NavigationCore/Resources/demo.json").standardized
    var graph = try #require(
      JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
    graph["version"] = 2
    let routes = try #require(graph["routes"] as? [[String: Any]])
    graph["routes"] = routes.filter { $0["name"] as? String != "settings" }.map { route in
      var route = route
      route["next"] = (route["next"] as? [String])?.filter { $0 != "settings" }
      return route.compactMapValues { $0 }
    }
    graph["migrate"] = ["removed": ["settings": NSNull()]]
    let json = try JSONSerialization.data(withJSONObject: graph)
    let dry = try await server.backend.dryRun("demo", json: json)
    #expect(dry.sessions == 1 && dry.migrated == 1 && dry.stopped == ["settings": 1])
    #expect(try await server.backend.loadGraph("demo", json: json) == 2)
    let done = try await server.backend.migrateSessions(of: "demo")
    #expect(done.sessions == 1 && done.stopped == ["settings": 1])
    let again = await #expect(throws: NavStateError.self) {
      _ = try await server.backend.loadGraph("demo", json: json)
    }
    #expect(again?.code == .graphVersionExists)
  }
}

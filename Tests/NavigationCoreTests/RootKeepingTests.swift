import Foundation
import FoundationEssentials
import NavJSON
import Testing

@testable import NavigationCore

/// What an adversary found last round: ways a session lost its root, a migration showed a
/// closed screen, and a pending request outlived the graph it was made under.
@Suite struct RootKeepingTests {
  @Test("a pending deep link whose later route stays closed is dropped; the login root stays")
  func loginRootStays() throws {
    var session = try GuardedSession(graph: zumryGraph)
    #expect(session.routes == ["login"])
    try session.apply(.deepLink("/dashboard/profile"))
    #expect(session.state.pendingRequest?.route == "dashboard")
    // Signed in without a role: the dashboard opens, the profile does not.
    let events = try session.apply(.setContext(["authenticated": .bool(true)]))
    #expect(events.last == "dropped dashboard invalid requirement_not_met", "\(events)")
    #expect(session.state.rootID != nil)
    #expect(session.routes == ["login"])
    #expect(session.state.pendingRequest == nil)
    // The session goes on: the dashboard is now open from the login screen.
    try session.apply(.push(route("dashboard")))
    #expect(session.routes == ["login", "dashboard"])
  }

  @Test("a pending root too large for the coordinator limit is dropped and the redirect root stays")
  func pendingRootOverLimit() throws {
    let graph = try loadGraph(
      """
      {"name": "big", "root": "vault", "routes": [
        {"name": "vault", "root": true, "tabs": ["a", "b", "c"],
         "requires": {"signedIn": true}, "redirect": "signin"},
        {"name": "a"}, {"name": "b"}, {"name": "c"}, {"name": "signin", "root": true}
      ]}
      """)
    var session = try GuardedSession(graph: graph, limits: NavigationLimits(maxCoordinators: 3))
    #expect(session.routes == ["signin"])
    let events = try session.apply(.setContext(signedIn))
    #expect(events.last == "dropped vault invalid coordinator_limit", "\(events)")
    #expect(session.routes == ["signin"])
  }

  @Test("a pending creation whose route a new version renamed follows the rename")
  func pendingCreationRenamed() throws {
    var session = try GuardedSession(graph: zumryGraph)
    #expect(session.state.pendingRequest?.route == "dashboard")
    let renamed = try zumryVersion2(renaming: "dashboard", to: "home")
    let (migrated, _) = try session.state.migrated(to: renamed, isOpen: { _ in true })
    session.state = migrated
    #expect(session.state.pendingRequest?.route == "home")
    try session.apply(.setContext(["authenticated": .bool(true)]))
    #expect(session.routes == ["home"])
    #expect(session.state.pendingRequest == nil)
  }

  @Test("a pending creation whose route a new version removed is dropped, the root stays")
  func pendingCreationRemoved() throws {
    let session = try GuardedSession(graph: zumryGraph)
    let source = try #require(String(bytes: PackageResources.zumry_json, encoding: .utf8))
    // Version 2 roots at login, and no longer has the dashboard.
    var document = try #require(try JSONParser.parse(Array(source.utf8)).objectValue)
    document["version"] = 2
    document["root"] = "login"
    let routes = try #require(document["routes"]?.arrayValue).compactMap { route -> JSONValue? in
      guard var object = route.objectValue, object["name"] != "dashboard" else { return nil }
      if let next = object["next"]?.arrayValue {
        object["next"] = .array(next.filter { $0 != "dashboard" })
      }
      return .object(object)
    }
    document["routes"] = .array(routes)
    let version2 = try RouteGraph.decode(JSONValue.object(document).encoded, source: "v2")
    let (migrated, events) = try session.state.migrated(to: version2, isOpen: { _ in true })
    #expect(describe(events).contains("dropped dashboard invalid unknown_route"))
    #expect(migrated.pendingRequest == nil)
    #expect(migrated.invariantViolations() == [])
    #expect(guardViolations(migrated) == [])
  }

  @Test("a migration that restarts the tree starts at the closed root's open redirect")
  func restartAvoidsClosedRoot() throws {
    var session = try GuardedSession(graph: zumryGraph, context: ["authenticated": .bool(true)])
    #expect(session.routes == ["dashboard"])
    // Signed out with the redirect pending behind login: push a guarded checkout first.
    try session.apply(.setContext([:]))
    #expect(session.routes == ["login"])
    // Version 2 makes login not a root any more... and keeps dashboard guarded.
    let version2 = try zumryVersion2(loginIsRoot: false, extraRoot: "signup")
    let (migrated, _) = try session.state.migrated(
      to: version2, isOpen: { version2.isOpen($0.name, in: session.state.context) })
    #expect(migrated.invariantViolations() == [])
    #expect(guardViolations(migrated) == [], "\(migrated.visiblePath)")
    let root = try #require(migrated.rootID.flatMap { migrated[$0] })
    #expect(root.route == "signup")
  }

  @Test("a migration that removes the root's route restarts at the graph root's open redirect")
  func restartAtRedirectOfClosedGraphRoot() throws {
    func graph(_ version: Int, legacy: Bool) throws -> RouteGraph {
      try loadGraph(
        """
        {"name": "r", "version": \(version), "root": "home", "routes": [
          {"name": "home", "root": true, "requires": {"signedIn": true}, "redirect": "signin"},
          {"name": "signin", "root": true}\(legacy ? #", {"name": "legacy", "root": true}"# : "")
        ]}
        """)
    }
    let (state, _) = try NavigationState.start(
      graph: try graph(1, legacy: true), root: RouteRequest(route: "legacy"))
    let version2 = try graph(2, legacy: false)
    let (migrated, _) = try state.migrated(
      to: version2, isOpen: { version2.isOpen($0.name, in: state.context) })
    #expect(migrated.visiblePath.compactMap { migrated[$0]?.route } == ["signin"])
    #expect(guardViolations(migrated) == [])
  }

  @Test("a migration that stops the redirect screen drops the pending request")
  func migrationDropsPendingOfStoppedRedirect() throws {
    var session = try GuardedSession(graph: zumryGraph)
    try session.apply(.deepLink("/dashboard"))
    let login = try #require(session.state.pendingRequest?.coordinator)
    let version2 = try zumryVersion2(loginIsRoot: false, extraRoot: "signup")
    let (migrated, events) = try session.state.migrated(
      to: version2, isOpen: { version2.isOpen($0.name, in: session.state.context) })
    #expect(migrated[login] == nil)
    #expect(migrated.pendingRequest == nil)
    #expect(describe(events).contains("dropped dashboard cancelled"))
    #expect(guardViolations(migrated) == [])
  }

  @Test("a pending push applied after a new version changed its param's type is refitted")
  func pendingParamsRefitted() throws {
    let v1 = """
      {"name": "p", "version": VERSION, "root": "home", "routes": [
        {"name": "home", "root": true},
        {"name": "signin"},
        {"name": "item", "params": {"id": {"type": "TYPE", "required": REQUIRED}},
         "requires": {"signedIn": true}, "redirect": "signin"}
      ]}
      """
    func graph(_ version: Int, _ type: String, required: Bool) throws -> RouteGraph {
      try loadGraph(
        v1.replacingOccurrences(of: "VERSION", with: "\(version)")
          .replacingOccurrences(of: "TYPE", with: type)
          .replacingOccurrences(of: "REQUIRED", with: "\(required)"))
    }
    for (type, required, expected) in [
      ("string", true, "dropped item invalid invalid_params"), ("string", false, "applied item"),
    ] {
      var session = try GuardedSession(graph: try graph(1, "int", required: true))
      try session.apply(.push(RouteRequest(route: "item", params: ["id": .int(5)])))
      #expect(session.routes == ["home", "signin"])
      let (migrated, _) = try session.state.migrated(to: try graph(2, type, required: required))
      session.state = migrated
      let events = try session.apply(.setContext(signedIn))
      #expect(events.contains(expected), "\(events)")
      #expect(session.state.invariantViolations() == [])
      if let item = session.state.activeID.flatMap({ session.state[$0] }), item.route == "item" {
        #expect(item.params.isEmpty)
      }
    }
  }
}

/// Zumry as a version 2: `renaming` one route, or with login no longer a root and another
/// route (`extraRoot`) marked as one.
private func zumryVersion2(
  renaming old: String? = nil, to new: String? = nil, loginIsRoot: Bool = true,
  extraRoot: String? = nil
) throws -> RouteGraph {
  let source = try #require(String(bytes: PackageResources.zumry_json, encoding: .utf8))
  var document = try #require(try JSONParser.parse(Array(source.utf8)).objectValue)
  document["version"] = 2
  func renamed(_ value: JSONValue) -> JSONValue {
    guard let old, let new, value == .string(old) else { return value }
    return .string(new)
  }
  if let root = document["root"] { document["root"] = renamed(root) }
  let routes = try #require(document["routes"]?.arrayValue).map { route -> JSONValue in
    guard var object = route.objectValue else { return route }
    if let name = object["name"] { object["name"] = renamed(name) }
    if let next = object["next"]?.arrayValue { object["next"] = .array(next.map(renamed)) }
    if let redirect = object["redirect"] { object["redirect"] = renamed(redirect) }
    if object["name"] == "login", !loginIsRoot { object["root"] = false }
    if let extraRoot, object["name"] == .string(extraRoot) { object["root"] = true }
    return .object(object)
  }
  document["routes"] = .array(routes)
  if let old, let new { document["migrate"] = ["renamed": .object([old: .string(new)])] }
  return try RouteGraph.decode(JSONValue.object(document).encoded, source: "zumry v2")
}

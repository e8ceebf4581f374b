import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Graph versions under live sessions (docs/behaviour.md section 12, docs/graphs.md "Changing the graph"), against the real
/// binary: loading a version (backend only), dry runs, lazy and explicit migration, streams,
/// restarts on a data directory, SIGHUP reloads, metrics, and `deploy/load-graph` on a cluster.
@Suite("Graph versions")
struct GraphVersionTests {
  /// At least 32 printable characters, and not 43 base64url ones (which could be a token).
  static let backendKey = "graph-version-tests!backend-key-0123456789"

  /// Version 2 of the built-in `demo`: `detail` renamed to `item`, `settings` removed (its
  /// coordinators stop), and `login` no longer a root (a tree rooted at it restarts at `master`).
  static let demoV2 = """
    {
      "name": "demo",
      "version": 2,
      "root": "master",
      "migrate": { "renamed": { "detail": "item" }, "removed": { "settings": null } },
      "routes": [
        { "name": "master", "path": "/master", "next": ["item"] },
        {
          "name": "item", "path": "/item/{id}",
          "params": { "id": { "type": "int", "required": true } }, "next": ["item"]
        },
        { "name": "login", "path": "/login", "next": ["dashboard", "forgotPassword", "signup"] },
        { "name": "dashboard", "path": "/dashboard", "next": [] },
        {
          "name": "forgotPassword", "path": "/forgotPassword", "presentation": "sheet",
          "presentations": ["sheet"], "next": []
        },
        {
          "name": "signup", "path": "/signup", "presentation": "fullScreenCover",
          "presentations": ["fullScreenCover"], "next": ["dashboard"]
        },
        { "name": "tabs", "path": "/tabs", "root": true, "tabs": ["home", "search", "profile"] },
        { "name": "home", "path": "/home", "next": ["item"] },
        {
          "name": "search", "path": "/search",
          "params": { "query": { "type": "string", "default": "" } }, "next": ["item"]
        },
        { "name": "profile", "path": "/profile", "next": [] },
        { "name": "scene1", "path": "/scene1", "root": true, "next": ["scene2", "scene3"] },
        {
          "name": "scene2", "path": "/scene2/{text}",
          "params": { "text": { "type": "string", "required": true } },
          "presentations": ["push"], "next": []
        },
        {
          "name": "scene3", "path": "/scene3/{text}",
          "params": { "text": { "type": "string", "required": true } },
          "presentation": "sheet", "presentations": ["sheet"], "next": []
        }
      ]
    }

    """

  /// A temporary folder holding a backend key file; removed by `remove()`.
  struct Folder {
    let path: String
    var keyFile: String { path + "/backend-keys" }

    init() throws {
      path = NSTemporaryDirectory() + "navstate-graph-versions-\(UUID().uuidString)"
      try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
      try Data((GraphVersionTests.backendKey + "\n").utf8).write(
        to: URL(fileURLWithPath: keyFile))
    }

    func write(_ name: String, _ text: String) throws -> String {
      let file = path + "/" + name
      try Data(text.utf8).write(to: URL(fileURLWithPath: file))
      return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
  }

  // MARK: - Helpers

  static func put(
    _ client: any TestClient, _ name: String, _ body: String, token: String? = backendKey,
    query: String = ""
  ) throws -> TestResponse {
    var headers = [("Content-Type", "application/json")]
    if let token { headers.append(("Authorization", "Bearer \(token)")) }
    return try client.request(
      "PUT", "/v1/graphs/\(name)\(query)", headers: headers, body: Array(body.utf8))
  }

  static func migrateAll(_ client: any TestClient, _ name: String, token: String? = backendKey)
    throws -> TestResponse
  {
    var headers: [(String, String)] = []
    if let token { headers.append(("Authorization", "Bearer \(token)")) }
    return try client.request("POST", "/v1/graphs/\(name)/migrate", headers: headers)
  }

  static func graphVersion(_ client: any TestClient, _ name: String = "demo") throws -> Int? {
    try client.request("GET", "/v1/graphs/\(name)").json["version"]?.intValue
  }

  /// The sample of a labelled series on `/metrics` (`name{labels}`), if it is there.
  static func metric(_ client: any TestClient, _ series: String) throws -> Double? {
    let text = try client.request("GET", "/metrics").text
    let line = text.split(separator: "\n").first { $0.hasPrefix("\(series) ") }
    return line.flatMap { Double($0.split(separator: " ").last ?? "") }
  }

  /// `[id, route]` of each coordinator of the visible path of a state (or `{session}` answer).
  static func path(_ response: TestResponse) -> [[String]] {
    let state = response.json["session"] ?? response.json
    return state["path"]?.arrayValue?.map {
      [$0["id"]?.stringValue ?? "?", $0["route"]?.stringValue ?? "?"]
    } ?? []
  }

  /// Every coordinator id in a state's tree.
  static func treeIDs(_ response: TestResponse) -> Set<String> {
    var ids: Set<String> = []
    func visit(_ node: JSONValue?) {
      guard let node else { return }
      if let id = node["id"]?.stringValue { ids.insert(id) }
      for child in node["children"]?.arrayValue ?? [] { visit(child) }
      for tab in node["tabs"]?.arrayValue ?? [] { visit(tab) }
    }
    visit((response.json["session"] ?? response.json)["root"])
    return ids
  }

  static func events(of session: TestSession, after seq: Int) throws -> [JSONValue] {
    try session.client.json("GET", "\(session.path)/events?after=\(seq)", token: session.token)
      .json["events"]?.arrayValue ?? []
  }

  /// A session on `master` › `detail` 7 › the `settings` sheet (c1, c2, c3).
  static func deepSession(_ client: any TestClient) throws -> TestSession {
    let session = try TestSession(client)
    let linked = try session.call("deeplink", ["url": "myapp://master/detail/7/settings"])
    try #require(
      path(linked) == [["c1", "master"], ["c2", "detail"], ["c3", "settings"]], "\(linked.text)")
    return session
  }

  /// A session whose root is `login` (a root in version 1, not in version 2).
  static func loginSession(_ client: any TestClient) throws -> TestSession {
    let session = try TestSession(client)
    let replaced = try session.call("replace", ["route": "login"])
    try #require(path(replaced).map { $0[1] } == ["login"], "\(replaced.text)")
    return session
  }

  /// Version `version` of a small graph: `home` › `cart`, and `extra` beside `cart` if given.
  static func shop(_ version: Int, _ extra: String? = nil) -> String {
    let next = ["cart"] + (extra.map { [$0] } ?? [])
    let names = next.map { "\"\($0)\"" }.joined(separator: ",")
    let routes = [#"{"name":"home","next":[\#(names)]}"#] + next.map { #"{"name":"\#($0)"}"# }
    return #"{"name":"shop","version":\#(version),"root":"home","routes":["#
      + routes.joined(separator: ",") + "]}"
  }

  static func backendServer(_ folder: Folder, _ extra: [String] = []) throws -> ServerProcess {
    try ServerProcess(["--backend-key-file", folder.keyFile] + extra)
  }

  /// The same on the test kit's `backend`, with `graphFiles` loaded beside the built-in graphs.
  static func backendApp(_ backend: TestBackend, _ folder: Folder, graphFiles: [String] = [])
    throws -> TestApp
  {
    try TestApp(backend) { configuration in
      configuration.graphs = try StartupFiles.load(files: graphFiles)
      configuration.store.backendKeys = try StartupFiles.backendKeys(file: folder.keyFile)
    }
  }

  // MARK: - 1, 2: who may load, and what is refused

  @Test(
    "loading a version and migrating are backend calls: 401 without a token, 403 with a session's",
    arguments: TestBackend.allCases)
  func backendOnly(backend: TestBackend) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let server = try Self.backendApp(backend, folder)
    defer { server.stop() }
    let client = server.client
    let session = try TestSession(client)

    let anonymous = try Self.put(client, "demo", Self.demoV2, token: nil)
    #expect(anonymous.status == 401, "\(anonymous.text)")
    let asSession = try Self.put(client, "demo", Self.demoV2, token: session.token)
    #expect(asSession.status == 403)
    #expect(asSession.json["code"] == "backend_only")
    let dryAsSession = try Self.put(
      client, "demo", Self.demoV2, token: session.token, query: "?dryRun=true")
    #expect(dryAsSession.status == 403)
    #expect(try Self.graphVersion(client) == 1, "a refused PUT loaded nothing")

    let migrateAnonymous = try Self.migrateAll(client, "demo", token: nil)
    #expect(migrateAnonymous.status == 401)
    let migrateAsSession = try Self.migrateAll(client, "demo", token: session.token)
    #expect(migrateAsSession.status == 403)
    #expect(migrateAsSession.json["code"] == "backend_only")
    #expect(try session.get().json["graphVersion"] == 1)

    let loaded = try Self.put(client, "demo", Self.demoV2)
    #expect(loaded.status == 201, "\(loaded.text)")
    #expect(loaded.json["version"] == 2)
    #expect(loaded.header("Location") == "/v1/graphs/demo?version=2")
    #expect(try Self.graphVersion(client) == 2)
    let migrated = try Self.migrateAll(client, "demo")
    #expect(migrated.status == 200, "\(migrated.text)")
    #expect(migrated.json["sessions"] == 1)
  }

  @Test(
    "409 graph_version_exists for a version not above the newest; 422 invalid_graph",
    arguments: TestBackend.allCases)
  func refusals(backend: TestBackend) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let server = try Self.backendApp(backend, folder)
    defer { server.stop() }
    let client = server.client

    let sameAsBuiltIn = Self.demoV2.replacingOccurrences(
      of: #""version": 2"#, with: #""version": 1"#)
    let first = try Self.put(client, "demo", sameAsBuiltIn)
    #expect(first.status == 409, "version 1 is loaded: \(first.text)")
    #expect(first.json["code"] == "graph_version_exists")
    #expect(try Self.put(client, "demo", Self.demoV2).status == 201)
    for (label, body) in [("same", Self.demoV2), ("lower", sameAsBuiltIn)] {
      let refused = try Self.put(client, "demo", body)
      #expect(refused.status == 409, "\(label): \(refused.text)")
      #expect(refused.json["code"] == "graph_version_exists", "\(label)")
      #expect(refused.header("Content-Type") == "application/problem+json", "\(label)")
    }
    let dryRefused = try Self.put(client, "demo", Self.demoV2, query: "?dryRun=true")
    #expect(dryRefused.status == 409, "\(dryRefused.text)")

    let v3 = Self.demoV2.replacingOccurrences(of: #""version": 2"#, with: #""version": 3"#)
    let invalid: [(String, String)] = [
      ("not JSON", #"{"name": "demo", "version": 3, oops"#),
      (
        "unknown route in next",
        #"{"name":"demo","version":3,"root":"a","routes":[{"name":"a","next":["nowhere"]}]}"#
      ),
      (
        "another graph's name",
        v3.replacingOccurrences(of: #""name": "demo""#, with: #""name": "shop""#)
      ),
    ]
    for (label, body) in invalid {
      let refused = try Self.put(client, "demo", body)
      #expect(refused.status == 422, "\(label): \(refused.text)")
      #expect(refused.json["code"] == "invalid_graph", "\(label)")
      #expect(refused.header("Content-Type") == "application/problem+json", "\(label)")
    }
    let unknownRoute = try Self.put(client, "demo", invalid[1].1)
    #expect(unknownRoute.json["detail"]?.stringValue?.contains("nowhere") == true)
    #expect(try Self.graphVersion(client) == 2, "nothing refused was loaded")
    #expect(try client.request("GET", "/v1/graphs/shop").status == 404)
    // A valid version 3 still loads after the refusals.
    #expect(try Self.put(client, "demo", v3).status == 201)
  }

  // MARK: - 3: dry runs

  @Test(
    "a dry run counts unchanged, migrated, stopped and restarted sessions, and loads nothing",
    arguments: TestBackend.allCases)
  func dryRun(backend: TestBackend) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let shop = try folder.write(
      "shop.json", #"{"name":"shop","root":"home","routes":[{"name":"home"}]}"#)
    let server = try Self.backendApp(backend, folder, graphFiles: [shop])
    defer { server.stop() }
    let client = server.client

    let unchanged = try TestSession(client)
    let deep = try Self.deepSession(client)
    let login = try Self.loginSession(client)
    let renamedOnly = try TestSession(client)
    #expect(try renamedOnly.call("push", ["route": "detail", "params": ["id": 3]]).status == 200)
    let deleted = try Self.deepSession(client)
    #expect(try client.json("DELETE", deleted.path, token: deleted.token).status == 204)
    // Another graph's session is not counted.
    _ = try TestSession(client, body: ["graph": "shop"])
    let sessions = [unchanged, deep, login, renamedOnly]
    let before = try sessions.map { try $0.get().json["version"]?.intValue }

    let expected =
      #"{"sessions":4,"unchanged":1,"migrated":3,"stopped":{"login":1,"settings":1},"restarted":1}"#
    for _ in 0..<2 {
      let dry = try Self.put(client, "demo", Self.demoV2, query: "?dryRun=true")
      #expect(dry.status == 200, "\(dry.text)")
      #expect(dry.text == expected)
    }
    #expect(try Self.graphVersion(client) == 1, "a dry run loads nothing")
    #expect(try client.request("GET", "/v1/graphs/demo?version=2").status == 404)
    for (index, session) in sessions.enumerated() {
      let state = try session.get()
      #expect(state.json["graphVersion"] == 1, "session \(index)")
      #expect(state.json["version"]?.intValue == before[index], "session \(index)")
    }
    // What a migration then does is what the dry run said.
    #expect(try Self.put(client, "demo", Self.demoV2).status == 201)
    let done = try Self.migrateAll(client, "demo")
    #expect(done.status == 200)
    #expect(done.text == expected)
  }

  // MARK: - 4, 9: lazy migration, metrics

  @Test(
    "a session moves at its next call, a GET included: one version bump, ids kept, events",
    arguments: TestBackend.allCases)
  func lazyMigration(backend: TestBackend) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let server = try Self.backendApp(backend, folder)
    defer { server.stop() }
    let client = server.client

    let deep = try Self.deepSession(client)
    let idle = try TestSession(client)
    let beforeState = try deep.get()
    let version = try #require(beforeState.json["version"]?.intValue)
    let lastSeq = try #require(
      client.json("GET", "\(deep.path)/events?after=0", token: deep.token).json["lastSeq"]?
        .intValue)

    #expect(try Self.put(client, "demo", Self.demoV2).status == 201)
    // Version 1 still answers while sessions are on it.
    let old = try client.request("GET", "/v1/graphs/demo?version=1")
    #expect(old.status == 200)
    #expect(old.json["version"] == 1)
    #expect(old.json["routes"]?.arrayValue?.contains { $0["name"] == "settings" } == true)
    #expect(try Self.metric(client, #"navstate_migrations_total{graph="demo"}"#) == nil)

    let moved = try deep.get()
    #expect(moved.status == 200)
    #expect(moved.json["graphVersion"] == 2)
    #expect(moved.json["version"]?.intValue == version + 1, "\(moved.text)")
    #expect(Self.path(moved) == [["c1", "master"], ["c2", "item"]])
    #expect(moved.json["path"]?[1]?["params"]?["id"] == 7)
    #expect(Self.treeIDs(moved) == ["c1", "c2"], "the settings sheet is gone from the tree")
    #expect(moved.json["active"] == "c2")

    let events = try Self.events(of: deep, after: lastSeq)
    #expect(events.count == 2, "\(events)")
    #expect(events.first?["type"] == "coordinator.stopped")
    #expect(events.first?["coordinator"] == "c3")
    #expect(events.first?["reason"] == "migrated")
    #expect(events.last?["type"] == "session.migrated")
    #expect(events.last?["from"] == 1)
    #expect(events.last?["to"] == 2)
    #expect(events.allSatisfy { $0["version"]?.intValue == version + 1 })

    // Exactly once: the next calls do not move it again.
    let again = try deep.get()
    #expect(again.json["version"]?.intValue == version + 1)
    #expect(try Self.events(of: deep, after: lastSeq).count == 2)
    let pushed = try deep.call("push", ["route": "item", "params": ["id": 8]])
    #expect(pushed.status == 200, "\(pushed.text)")
    #expect(pushed.json["version"]?.intValue == version + 2)
    let refused = try deep.call("present", ["route": "settings"])
    #expect(refused.status != 200, "settings is not in version 2")

    // New sessions start on the newest version.
    let fresh = try TestSession(client)
    #expect(fresh.created.json["session"]?["graphVersion"] == 2)
    #expect(fresh.created.json["session"]?["allowed"]?["push"] == ["item"])

    #expect(try idle.get().json["graphVersion"] == 2)
    #expect(try Self.metric(client, #"navstate_migrations_total{graph="demo"}"#) == 2)
    let starts = #"navstate_route_starts_total{graph="demo",route=""#
    #expect(try Self.metric(client, starts + #"item"}"#) == 1)
    #expect(try Self.metric(client, starts + #"detail"}"#) == 1)
    #expect(try Self.metric(client, starts + #"settings"}"#) == 1)
    #expect(try Self.metric(client, starts + #"master"}"#) == 3)
  }

  // MARK: - 5: POST /migrate

  @Test(
    "POST /v1/graphs/demo/migrate moves every session now and says what it did",
    arguments: TestBackend.allCases)
  func migrateAll(backend: TestBackend) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let server = try Self.backendApp(backend, folder)
    defer { server.stop() }
    let client = server.client

    let sessions = try [
      TestSession(client), Self.deepSession(client), Self.loginSession(client),
    ]
    let before = try sessions.map { session in
      let state = try session.get()
      let seq = try client.json("GET", "\(session.path)/events?after=0", token: session.token)
        .json["lastSeq"]?.intValue
      return (version: try #require(state.json["version"]?.intValue), seq: try #require(seq))
    }
    #expect(try Self.put(client, "demo", Self.demoV2).status == 201)
    let answer = try Self.migrateAll(client, "demo")
    #expect(answer.status == 200)
    #expect(
      answer.text
        == #"{"sessions":3,"unchanged":1,"migrated":2,"stopped":{"login":1,"settings":1},"restarted":1}"#
    )
    // Moved before any of them called: counted, and a second call finds none behind.
    #expect(try Self.metric(client, #"navstate_migrations_total{graph="demo"}"#) == 3)
    let second = try Self.migrateAll(client, "demo")
    #expect(
      second.text
        == #"{"sessions":0,"unchanged":0,"migrated":0,"stopped":{},"restarted":0}"#)

    for (index, session) in sessions.enumerated() {
      let events = try Self.events(of: session, after: before[index].seq)
      let migrated = events.filter { $0["type"] == "session.migrated" }
      #expect(migrated.count == 1, "session \(index): \(events)")
      #expect(migrated.first?["version"]?.intValue == before[index].version + 1)
      let state = try session.get()
      #expect(state.json["graphVersion"] == 2)
      #expect(state.json["version"]?.intValue == before[index].version + 1, "session \(index)")
    }
    // The login tree restarted at the graph's root, with a new coordinator.
    let restarted = try sessions[2].get()
    #expect(Self.path(restarted).map { $0[1] } == ["master"])
    #expect(Self.path(restarted).first?[0] != "c2")
    #expect(try Self.metric(client, #"navstate_migrations_total{graph="demo"}"#) == 3)
  }

  // MARK: - 6: streams

  @Test(
    "an open stream gets the migration's events, then a reset with the new state",
    arguments: [TestBackend.live])
  func streamReset(backend: TestBackend) throws {
    let folder = try Folder()
    defer { folder.remove() }
    let server = try Self.backendApp(backend, folder)
    defer { server.stop() }
    let client = server.client
    let session = try Self.deepSession(client)
    let version = try #require(session.get().json["version"]?.intValue)

    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    let first = try #require(stream.next())
    #expect(first.type == "reset")
    let lastSeq = try #require(first.id)
    #expect(try JSONParser.parse(first.data)["graphVersion"] == 1)

    #expect(try Self.put(client, "demo", Self.demoV2).status == 201)
    #expect(try Self.migrateAll(client, "demo").json["sessions"] == 1)
    let received = [stream.next(), stream.next(), stream.next()].compactMap { $0 }
    #expect(received.map(\.type) == ["coordinator.stopped", "session.migrated", "reset"])
    #expect(received.map(\.id) == [lastSeq + 1, lastSeq + 2, lastSeq + 2])
    let stopped = try JSONParser.parse(received[0].data)
    #expect(stopped["coordinator"] == "c3")
    #expect(stopped["reason"] == "migrated")
    let migrated = try JSONParser.parse(received[1].data)
    #expect(migrated["from"] == 1)
    #expect(migrated["to"] == 2)
    let reset = try JSONParser.parse(try #require(received.last).data)
    #expect(reset["graphVersion"] == 2)
    #expect(reset["version"]?.intValue == version + 1)
    #expect(
      reset["path"]?.arrayValue?.compactMap { $0["route"]?.stringValue } == ["master", "item"])
    // Nothing more: the session's next call does not migrate (or reset) it again.
    #expect(try session.get().json["version"]?.intValue == version + 1)
    #expect(stream.next(timeout: 0.3) == nil)
  }

  // MARK: - 7: restarts on a data directory

  @Test("a graceful restart without --graph files keeps every version and each session's own")
  func restartKeepsVersions() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let data = folder.path + "/data"
    let arguments = ["--data-dir", data]
    let first = try Self.backendServer(folder, arguments)
    let idle = try TestSession(first.client)
    #expect(try idle.call("push", ["route": "detail", "params": ["id": 5]]).status == 200)
    let idleVersion = try #require(idle.get().json["version"]?.intValue)
    let moved = try Self.deepSession(first.client)
    #expect(try Self.put(first.client, "demo", Self.demoV2).status == 201)
    let movedState = try moved.get()
    #expect(movedState.json["graphVersion"] == 2)
    let movedVersion = try #require(movedState.json["version"]?.intValue)
    #expect(first.stop() == 0)
    let saved = FileManager.default.contents(atPath: data + "/graph.demo.v2.json")
    #expect(saved == Data(Self.demoV2.utf8), "the data directory keeps version 2 as loaded")

    let second = try Self.backendServer(folder, arguments)
    defer { second.stop() }
    let client = second.client
    #expect(try Self.graphVersion(client) == 2)
    #expect(try client.request("GET", "/v1/graphs/demo?version=2").json["version"] == 2)
    #expect(try client.request("GET", "/v1/graphs/demo?version=1").json["version"] == 1)

    let movedAgain = try TestSession(client: client, id: moved.id, token: moved.token).get()
    #expect(movedAgain.json["graphVersion"] == 2)
    #expect(movedAgain.json["version"]?.intValue == movedVersion, "not migrated a second time")
    #expect(Self.path(movedAgain) == [["c1", "master"], ["c2", "item"]])

    // The session that never called came back on version 1: a dry run of a version 3 equal to
    // version 2 finds one session unchanged (on 2) and one renaming its detail (on 1).
    let v3 = Self.demoV2.replacingOccurrences(of: #""version": 2"#, with: #""version": 3"#)
    #expect(
      try Self.put(client, "demo", v3, query: "?dryRun=true").text
        == #"{"sessions":2,"unchanged":1,"migrated":1,"stopped":{},"restarted":0}"#)
    // It moves at its first call.
    let idleAgain = TestSession(client: client, id: idle.id, token: idle.token)
    let idleState = try idleAgain.get()
    #expect(idleState.json["graphVersion"] == 2)
    #expect(idleState.json["version"]?.intValue == idleVersion + 1)
    #expect(Self.path(idleState) == [["c1", "master"], ["c2", "item"]])
    let idleEvents = try Self.events(of: idleAgain, after: 0)
    #expect(idleEvents.last?["type"] == "session.migrated")
    #expect(try Self.metric(client, #"navstate_migrations_total{graph="demo"}"#) == 1)
    #expect(try TestSession(client).created.json["session"]?["graphVersion"] == 2)
  }

  @Test("kill -9 right after a migration: the journal's migration comes back as it was")
  func crashAfterMigration() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let data = folder.path + "/data"
    let arguments = ["--data-dir", data, "--fsync", "always", "--snapshot-interval", "0"]
    let first = try Self.backendServer(folder, arguments)
    let session = try Self.deepSession(first.client)
    let later = try TestSession(first.client)
    #expect(try Self.put(first.client, "demo", Self.demoV2).status == 201)
    // Another session moves, then changes under version 2 (a push of a route only it has).
    #expect(try later.get().json["graphVersion"] == 2)
    let laterPushed = try later.call("push", ["route": "item", "params": ["id": 9]])
    #expect(laterPushed.status == 200, "\(laterPushed.text)")
    let migrated = try session.get()
    #expect(migrated.json["graphVersion"] == 2)
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()

    let second = try Self.backendServer(folder, arguments)
    defer { second.stop() }
    let client = second.client
    let back = try TestSession(client: client, id: session.id, token: session.token).get()
    #expect(back.json["graphVersion"] == 2)
    #expect(back.json["version"] == migrated.json["version"])
    // Replayed, not migrated again at this call (which would stamp it now).
    #expect(back.json["updatedAt"] == migrated.json["updatedAt"])
    #expect(Self.path(back) == Self.path(migrated))
    #expect(Self.treeIDs(back) == ["c1", "c2"])
    let laterBack = try TestSession(client: client, id: later.id, token: later.token).get()
    #expect(laterBack.json["version"] == laterPushed.json["version"])
    #expect(Self.path(laterBack) == Self.path(laterPushed))
    let events = try Self.events(
      of: TestSession(client: client, id: session.id, token: session.token), after: 0)
    #expect(events.filter { $0["type"] == "session.migrated" }.count == 1)
    #expect(try Self.metric(client, #"navstate_migrations_total{graph="demo"}"#) == nil)
    #expect(try Self.migrateAll(client, "demo").json["sessions"] == 0)
    #expect(try Self.graphVersion(client) == 2)
  }

  @Test(
    "a --graph file with a saved version's name and number but other JSON refuses to start (65)")
  func changedGraphRefused() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let data = folder.path + "/data"
    let file = try folder.write("shop.json", Self.shop(1))
    let first = try Self.backendServer(folder, ["--data-dir", data, "--graph", file])
    #expect(try Self.put(first.client, "shop", Self.shop(2, "wishlist")).status == 201)
    _ = try TestSession(first.client, body: ["graph": "shop"])
    #expect(first.stop() == 0)

    // The same JSON as the saved version 2 starts.
    _ = try folder.write("shop.json", Self.shop(2, "wishlist"))
    let started = try ServerProcess(["--data-dir", data, "--graph", file])
    #expect(try Self.graphVersion(started.client, "shop") == 2)
    #expect(started.stop() == 0)

    for version in [2, 1] {
      _ = try folder.write("shop.json", Self.shop(version, "orders"))
      let outcome = try ProcessTests.runToExit(
        ["--port", "0", "--data-dir", data, "--graph", file], stopAfterStart: true)
      #expect(outcome.status == 65, "version \(version): \(outcome.errors)")
      #expect(outcome.errors.contains("graph.shop.v\(version).json"), "\(outcome.errors)")
      #expect(outcome.errors.contains("differs"), "\(outcome.errors)")
    }
  }

  @Test("a --graph file may bring a newer version of a built-in graph; an equal one refuses (65)")
  func builtInGraphNewerVersionFromAFile() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let file = try folder.write("demo-v2.json", Self.demoV2)
    let server = try ServerProcess(["--graph", file])
    #expect(try Self.graphVersion(server.client) == 2)
    let first = try server.client.request("GET", "/v1/graphs/demo?version=1")
    #expect(first.status == 200)
    let session = try TestSession(server.client)
    #expect(session.created.json["session"]?["graphVersion"] == .int(2))
    #expect(server.stop() == 0)
    let same = try folder.write(
      "demo-v1.json",
      String(
        decoding: try Data(
          contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Sources/NavigationCore/Resources/demo.json").standardized
        ),
        as: UTF8.self))
    let outcome = try ProcessTests.runToExit(
      ["--port", "0", "--graph", same], stopAfterStart: true)
    #expect(outcome.status == 65, "\(outcome.errors)")
    #expect(outcome.errors.contains("needs a higher version"), "\(outcome.errors)")
  }

  // MARK: - 8: SIGHUP

  @Test("SIGHUP loads a --graph file whose version grew; an invalid one leaves the version loaded")
  func sighupReload() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let file = try folder.write("shop.json", Self.shop(1))
    let server = try ServerProcess(["--graph", file])
    defer { server.stop() }
    let client = server.client
    let pid = server.process.processIdentifier
    let session = try TestSession(client, body: ["graph": "shop"])
    #expect(session.created.json["session"]?["graphVersion"] == 1)

    func waitForVersion(_ version: Int) throws -> Bool {
      let deadline = Date().addingTimeInterval(10)
      while Date() < deadline {
        if try Self.graphVersion(client, "shop") == version { return true }
        usleep(20_000)
      }
      return false
    }

    _ = try folder.write("shop.json", Self.shop(2, "wishlist"))
    kill(pid, SIGHUP)
    #expect(try waitForVersion(2))
    let moved = try session.get()
    #expect(moved.json["graphVersion"] == 2)
    #expect(try session.call("push", ["route": "wishlist"]).status == 200)

    // Not a graph (an unknown route), then not JSON: the server keeps version 2 and serves.
    let broken = [
      #"{"name":"shop","version":3,"root":"home","routes":[{"name":"home","next":["nowhere"]}]}"#,
      #"{"name":"shop","version":3,"#,
    ]
    for text in broken {
      _ = try folder.write("shop.json", text)
      kill(pid, SIGHUP)
      usleep(300_000)
      #expect(server.process.isRunning)
      #expect(try Self.graphVersion(client, "shop") == 2)
      #expect(try session.get().status == 200)
    }
    // And it still reloads afterwards.
    _ = try folder.write("shop.json", Self.shop(3, "orders"))
    kill(pid, SIGHUP)
    #expect(try waitForVersion(3))
    #expect(try session.get().json["graphVersion"] == 3)
  }

  // MARK: - 10: a cluster

  @Test(
    "deploy/load-graph loads a version on every node of a local cluster, and may run again",
    .enabled(if: LocalCluster.canRun, "nginx is not installed (Tests/run-all installs it)"))
  func clusterLoad() throws {
    let folder = try Folder()
    defer { folder.remove() }
    let graph = try folder.write("demo-v2.json", Self.demoV2)
    let cluster = try LocalCluster(nodes: 2, options: ["--backend-key-file", folder.keyFile])
    defer {
      cluster.stop()
      cluster.removeFiles()
    }
    // Sessions on both nodes (creations go round-robin), each on master › detail › settings.
    var sessions: [TestSession] = []
    for _ in 0..<4 { sessions.append(try Self.deepSession(cluster.client)) }
    let nodes = Set(sessions.map { String($0.id.prefix { $0 != "." }) })
    #expect(nodes == ["n1", "n2"])

    let dry = try Self.loadGraph(cluster, [graph, folder.keyFile, "--dry-run"])
    #expect(dry.status == 0, "\(dry.output)")
    let dryLines = dry.output.split(separator: "\n").map(String.init)
    #expect(dryLines.count == 2, "\(dry.output)")
    for line in dryLines {
      #expect(line.hasPrefix("n1 200 {") || line.hasPrefix("n2 200 {"), "\(line)")
      #expect(line.contains(#""stopped":{"settings":"#), "\(line)")
    }
    let totalSessions = dryLines.compactMap { line -> Int? in
      guard let brace = line.firstIndex(of: "{") else { return nil }
      return (try? JSONParser.parse(Array(line[brace...].utf8)))?["sessions"]?.intValue
    }.reduce(0, +)
    #expect(totalSessions == 4)
    for node in ["n1", "n2"] {
      let client = HTTPTestClient(port: try cluster.port(ofNode: node))
      #expect(try Self.graphVersion(client) == 1, "\(node): a dry run loads nothing")
    }

    let load = try Self.loadGraph(cluster, [graph, folder.keyFile])
    #expect(load.status == 0, "\(load.output)")
    #expect(
      load.output.split(separator: "\n").map { $0.prefix(6) } == ["n1 201", "n2 201"],
      "\(load.output)")
    for node in ["n1", "n2"] {
      let client = HTTPTestClient(port: try cluster.port(ofNode: node))
      #expect(try Self.graphVersion(client) == 2, "\(node)")
    }
    // Sessions on both nodes move at their next call, through the proxy.
    for session in sessions {
      let state = try session.get()
      #expect(state.json["graphVersion"] == 2)
      #expect(Self.path(state) == [["c1", "master"], ["c2", "item"]])
    }

    let again = try Self.loadGraph(cluster, [graph, folder.keyFile])
    #expect(again.status == 0, "409 counts as done: \(again.output)")
    #expect(
      again.output.split(separator: "\n").map { $0.prefix(6) } == ["n1 409", "n2 409"],
      "\(again.output)")
  }

  static func loadGraph(_ cluster: LocalCluster, _ arguments: [String]) throws -> (
    output: String, status: Int32
  ) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    let script = URL(fileURLWithPath: LocalCluster.script).deletingLastPathComponent()
      .appendingPathComponent("load-graph").path
    process.arguments = [script] + arguments
    var environment = ProcessInfo.processInfo.environment
    environment["NAVSTATE_CLUSTER_DIR"] = cluster.folder
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try ChildProcesses.run(process, killAfter: 60)
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (printed, process.terminationStatus)
  }
}

import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

/// A session's history, its state at a kept version and a restore (SPEC-level rules of
/// `GET .../history`, `GET ...?at=V` and `POST .../restore`).
@Suite("History and time travel")
struct HistoryTests {
  private func push(_ session: TestSession, _ id: Int) throws -> TestResponse {
    try session.call("push", ["route": "detail", "params": ["id": .int(id)]])
  }

  private func history(_ session: TestSession, query: String = "") throws -> TestResponse {
    try session.client.json("GET", "\(session.path)/history\(query)", token: session.token)
  }

  @Test(
    "an entry per version: who, when, and the operation as a batch element",
    arguments: TestBackend.allCases)
  func entries(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    #expect(try push(session, 1).status == 200)
    #expect(try session.call("pop").status == 200)
    let answer = try history(session)
    #expect(answer.status == 200)
    #expect(answer.json["version"] == 3)
    #expect(answer.json["oldest"] == 1)
    let entries = answer.json["entries"]?.arrayValue ?? []
    #expect(entries.map { $0["version"]?.intValue } == [1, 2, 3])
    #expect(entries.map { $0["by"]?.stringValue } == ["client", "client", "client"])
    #expect(entries[0]["op"] == ["op": "create"])
    #expect(
      entries[1]["op"]
        == ["op": "push", "route": "detail", "params": ["id": 1], "singleTop": false])
    #expect(entries[2]["op"] == ["op": "pop", "count": 1])
    // `at` is RFC 3339 with milliseconds.
    let at = entries[1]["at"]?.stringValue ?? ""
    #expect(at.count == 24 && at.hasSuffix("Z") && at.contains("."), "\(at)")
    let paged = try history(session, query: "?after=1&limit=1")
    #expect(paged.json["entries"]?.arrayValue?.map { $0["version"]?.intValue } == [2])
    #expect(try history(session, query: "?limit=0").status == 400)
    #expect(try history(session, query: "?limit=1001").status == 400)
  }

  @Test(
    "?at=V is the state as it was answered at V, allowed included", arguments: TestBackend.allCases)
  func stateAtVersion(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    var answered: [Int: JSONValue] = [1: session.created.json["session"] ?? .null]
    for id in 1...3 {
      let change = try push(session, id)
      answered[id + 1] = change.json["session"]
    }
    answered[5] = try session.call("pop").json["session"]
    for version in 1...5 {
      let past = try session.client.json(
        "GET", "\(session.path)?at=\(version)", token: session.token)
      #expect(past.status == 200)
      #expect(past.header("ETag") == "\"\(version)\"")
      var expected = answered[version]?.objectValue ?? JSONObject()
      var actual = past.json.objectValue ?? JSONObject()
      // The expiry moves with every call; everything else is as answered then.
      expected["expiresAt"] = nil
      actual["expiresAt"] = nil
      #expect(actual == expected, "version \(version)")
    }
    for bad in ["0", "6", "x", "-1"] {
      let refused = try session.client.json(
        "GET", "\(session.path)?at=\(bad)", token: session.token)
      #expect(refused.status == 400, "at=\(bad)")
      #expect(refused.json["code"] == "invalid_version")
    }
  }

  @Test(
    "versions older than --history-versions are 410 history_expired with oldest",
    arguments: TestBackend.allCases)
  func expired(backend: TestBackend) throws {
    let server = try TestApp(backend) { $0.store.historyVersions = 3 }
    defer { server.stop() }
    let session = try TestSession(server.client)
    for id in 1...5 { _ = try push(session, id) }
    let answer = try history(session)
    #expect(answer.json["oldest"] == 4)
    #expect(answer.json["entries"]?.arrayValue?.map { $0["version"]?.intValue } == [4, 5, 6])
    let gone = try session.client.json("GET", "\(session.path)?at=3", token: session.token)
    #expect(gone.status == 410)
    #expect(gone.json["code"] == "history_expired")
    #expect(gone.json["oldest"] == 4)
    let restore = try session.call("restore", ["version": 2])
    #expect(restore.status == 410)
    #expect(
      try session.client.json("GET", "\(session.path)?at=4", token: session.token).status == 200)
  }

  @Test(
    "a restore is a new change: one version, the old path, session.restored",
    arguments: TestBackend.allCases)
  func restore(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    for id in 1...3 { _ = try push(session, id) }
    let restored = try session.call("restore", ["version": 2])
    #expect(restored.status == 200)
    #expect(restored.json["version"] == 5)
    #expect(TestSession.routes(restored) == ["master", "detail"])
    let types = TestSession.events(restored).map(\.type)
    #expect(types.last == "session.restored")
    let event = restored.json["events"]?.arrayValue?.last
    #expect(event?["from"] == 2)
    let entries = try history(session, query: "?after=4").json["entries"]?.arrayValue ?? []
    #expect(entries.first?["op"] == ["op": "restore", "version": 2])
    // The same path again changes nothing, as PUT state.
    let again = try session.call("restore", ["version": 2])
    #expect(again.json["version"] == 5)
    #expect(again.json["events"] == [])
    for bad: JSONValue in [["version": 0], ["version": 9], ["version": "2"]] {
      let refused = try session.call("restore", bad)
      #expect(refused.status == 400, "\(bad)")
      #expect(refused.json["code"] == "invalid_version")
    }
    #expect(try session.call("restore", [:]).status == 400)
  }

  @Test(
    "a restore that would stop a guarded coordinator needs discard", arguments: TestBackend.allCases
  )
  func restoreLeaveGuard(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let pushed = try push(session, 1)
    let id = pushed.json["session"]?["path"]?[1]?["id"]?.stringValue ?? ""
    let guarded = try session.client.json(
      "PUT", "\(session.path)/coordinators/\(id)/leave-guard", token: session.token,
      body: ["reason": "unsaved"])
    #expect(guarded.status == 200)
    let blocked = try session.call("restore", ["version": 1])
    #expect(blocked.status == 409)
    #expect(blocked.json["code"] == "leave_blocked")
    let discarded = try session.call("restore", ["version": 1, "discard": true])
    #expect(discarded.status == 200)
    #expect(TestSession.routes(discarded) == ["master"])
  }

  @Test("the backend's changes say backend")
  func authors() throws {
    let server = try TestApp(.router) {
      $0.store.backendKeys = try BackendKeys(
        fileContents: Array("history-test-backend-key-0123456789\n".utf8))
    }
    defer { server.stop() }
    let created = try server.client.json(
      "POST", "/v1/sessions", token: "history-test-backend-key-0123456789",
      body: ["graph": "demo"])
    let path = "/v1/sessions/\(created.json["session"]?["id"]?.stringValue ?? "")"
    _ = try server.client.json(
      "POST", "\(path)/push", token: "history-test-backend-key-0123456789",
      body: ["route": "detail", "params": ["id": 1]])
    let answer = try server.client.json(
      "GET", "\(path)/history", token: "history-test-backend-key-0123456789")
    #expect(
      answer.json["entries"]?.arrayValue?.map { $0["by"]?.stringValue } == ["backend", "backend"])
  }

  private static let backendKey = "history-test-backend-key-0123456789"

  private static func withBackend(_ backend: TestBackend) throws -> TestApp {
    try TestApp(backend) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((backendKey + "\n").utf8))
    }
  }

  @Test(
    "a migration is the server's entry, and ?at reads back across it; context and leave-guard ops",
    arguments: TestBackend.allCases)
  func migrationContextAndGuards(backend: TestBackend) throws {
    let server = try Self.withBackend(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    _ = try push(session, 1)
    let id = try session.get().json["path"]?[1]?["id"]?.stringValue ?? ""
    _ = try session.client.json(
      "PUT", "\(session.path)/coordinators/\(id)/leave-guard", token: session.token,
      body: ["reason": "unsaved"])
    _ = try session.client.json(
      "PUT", "\(session.path)/context", token: Self.backendKey, body: ["plan": "pro"])
    let atThree = try session.client.json("GET", "\(session.path)?at=3", token: session.token)
    // Version 2 of demo: detail renamed item, settings gone; the next call migrates.
    let demoV2 = try JSONParser.parse(Array(GraphVersionTests.demoV2.utf8))
    #expect(
      try server.client.json("PUT", "/v1/graphs/demo", token: Self.backendKey, body: demoV2)
        .status == 201)
    let migrated = try session.get()
    #expect(migrated.json["graphVersion"] == 2)
    let entries = try history(session).json["entries"]?.arrayValue ?? []
    #expect(
      entries.map { $0["op"]?["op"]?.stringValue } == [
        "create", "push", "leaveGuard", "context", "migrate",
      ])
    #expect(
      entries.map { $0["by"]?.stringValue } == [
        "client", "client", "client", "backend", "server",
      ])
    #expect(
      entries[2]["op"] == ["op": "leaveGuard", "coordinator": .string(id), "reason": "unsaved"])
    #expect(entries[3]["op"] == ["op": "context"], "a context's values are never in the history")
    #expect(entries[4]["op"] == ["op": "migrate", "from": 1, "to": 2])
    // A version before the migration reads back on its graph version, as answered then.
    var before =
      try session.client.json("GET", "\(session.path)?at=3", token: session.token)
      .json.objectValue ?? JSONObject()
    var then = atThree.json.objectValue ?? JSONObject()
    before["expiresAt"] = nil
    then["expiresAt"] = nil
    #expect(before == then)
    #expect(before["graphVersion"] == 1)
    // A restore brings back the path, not the context nor the leave guard.
    let restored = try session.call("restore", ["version": 1, "discard": true])
    #expect(restored.status == 200)
    #expect(TestSession.routes(restored) == ["master"])
    #expect(restored.json["session"]?["context"] == ["plan": "pro"])
  }

  @Test("a page holds 100 entries unless told otherwise")
  func defaultLimit() throws {
    let server = try TestApp(.router)
    defer { server.stop() }
    let session = try TestSession(server.client)
    for id in 0..<60 {
      _ = try push(session, id)
      _ = try session.call("pop")
    }
    let page = try history(session).json["entries"]?.arrayValue ?? []
    #expect(page.count == 100)
    #expect(page.first?["version"] == 1)
    #expect(page.last?["version"] == 100)
    let rest = try history(session, query: "?after=100&limit=1000").json["entries"]?.arrayValue
    #expect(rest?.map { $0["version"]?.intValue } == (101...121).map { $0 })
  }
}

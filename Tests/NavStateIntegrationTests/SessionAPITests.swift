import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

/// The HTTP rules of sessions and operations, on both of the test kit's backends (the router in
/// process, and the application listening in process); what only the binary or a socket shows
/// runs on that alone.
@Suite("Sessions and operations over HTTP")
struct SessionAPITests {
  @Test(
    "creation answers 201 with Location, ETag, state and a 256-bit token",
    arguments: TestBackend.allCases)
  func create(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    #expect(session.created.header("Location") == "/v1/sessions/\(session.id)")
    #expect(session.created.header("ETag") == "\"1\"")
    #expect(session.token.count == 43)
    let state = try #require(session.created.json["session"])
    #expect(state["graph"] == "demo")
    #expect(state["version"] == 1)
    #expect(state["active"] == "c1")
    #expect(state["root"]?["route"] == "master")
    #expect(state["root"]?["children"] == [])
    for field in ["createdAt", "updatedAt", "expiresAt"] {
      let text = state[field]?.stringValue ?? ""
      // RFC 3339 in UTC with milliseconds: 2026-11-22T18:00:00.123Z
      let shape = text.map { $0.isNumber ? "9" : String($0) }.joined()
      #expect(shape == "9999-99-99T99:99:99.999Z", "\(field): \(text)")
    }
    let created = state["createdAt"]?.stringValue ?? ""
    let expires = state["expiresAt"]?.stringValue ?? ""
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    let lifetime =
      (formatter.date(from: expires)?.timeIntervalSince(
        formatter.date(from: created) ?? .distantFuture))
    #expect(lifetime == 1800)
    let other = try TestSession(client)
    #expect(other.id != session.id)
    #expect(other.token != session.token)
  }

  @Test("GET answers the state with its version as ETag", arguments: TestBackend.allCases)
  func get(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 7]])
    let state = try session.get()
    #expect(state.status == 200)
    #expect(state.header("ETag") == "\"2\"")
    #expect(TestSession.routes(state) == ["master", "detail"])
    #expect(state.json["path"]?[1]?["params"] == ["id": 7])
  }

  @Test(
    "a whole walk: push, present, back, deep link, teardown, delete",
    arguments: TestBackend.allCases)
  func walk(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let pushed = try session.call("push", ["route": "detail", "params": ["id": 1]])
    #expect(pushed.status == 200)
    #expect(TestSession.events(pushed).map(\.type) == ["coordinator.started"])
    let presented = try session.call("present", ["route": "settings", "style": "sheet"])
    #expect(TestSession.routes(presented) == ["master", "detail", "settings"])
    let back = try session.call("back", ["result": ["saved": true]])
    #expect(TestSession.routes(back) == ["master", "detail"])
    #expect(TestSession.events(back).map(\.type) == ["coordinator.stopped", "coordinator.resumed"])
    #expect(back.json["events"]?[1]?["result"] == ["saved": true])
    let linked = try session.call("deeplink", ["url": "myapp://master/detail/5/settings"])
    #expect(TestSession.routes(linked) == ["master", "detail", "settings"])
    #expect(linked.json["session"]?["path"]?[1]?["params"] == ["id": 5])
    let detailID = try #require(linked.json["session"]?["path"]?[1]?["id"]?.stringValue)
    let torn = try client.json(
      "DELETE", "\(session.path)/coordinators/\(detailID)", token: session.token)
    #expect(torn.status == 200)
    #expect(TestSession.events(torn).map(\.type) == ["coordinator.stopped", "coordinator.stopped"])
    #expect(torn.json["events"]?[0]?["route"] == "settings")
    #expect(torn.json["events"]?[1]?["reason"] == "teardown")
    let again = try client.json(
      "DELETE", "\(session.path)/coordinators/\(detailID)", token: session.token)
    #expect(again.status == 204)
    let never = try client.json("DELETE", "\(session.path)/coordinators/c999", token: session.token)
    #expect(never.status == 404)
    #expect(never.json["code"] == "unknown_coordinator")
    let root = try client.json("DELETE", "\(session.path)/coordinators/c1", token: session.token)
    #expect(root.status == 409)
    #expect(root.json["code"] == "cannot_tear_down_root")
    let deleted = try client.json("DELETE", session.path, token: session.token)
    #expect(deleted.status == 204)
    #expect(try session.get().status == 404)
  }

  @Test(
    "deleting a session stops every coordinator, children first, then session.ended",
    arguments: TestBackend.allCases)
  func deleteCascade(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    _ = try session.call("present", ["route": "settings"])
    let before = try client.json("GET", "\(session.path)/events?after=0", token: session.token)
    let lastSeq = try #require(before.json["lastSeq"]?.intValue)
    _ = try client.json("DELETE", session.path, token: session.token)
    // The log is gone with the session; the cascade is checked in the core's tests, and here
    // the server's service-wide counters must come back down.
    #expect(lastSeq == 3)
  }

  @Test("every refusal is a problem document with a stable code", arguments: TestBackend.allCases)
  func refusals(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let cases: [(String, JSONValue, Int, String)] = [
      ("pop", [:], 409, "nothing_to_pop"),
      ("dismiss", [:], 409, "nothing_to_dismiss"),
      ("back", [:], 409, "nothing_to_go_back_to"),
      ("push", ["route": "nowhere"], 422, "unknown_route"),
      ("push", ["route": "detail"], 422, "invalid_params"),
      ("push", ["route": "detail", "params": ["id": "x"]], 422, "invalid_params"),
      ("push", ["route": "login"], 422, "route_not_allowed"),
      ("push", ["route": "settings"], 422, "presentation_not_allowed"),
      ("select-tab", ["tab": 1], 409, "no_tab_container"),
      ("deeplink", ["url": "/master/nowhere"], 422, "no_route_for_url"),
      (
        "push", ["route": "detail", "params": ["id": 1], "singletop": true], 422, "invalid_request"
      ),
      ("pop", ["count": 1, "toRoot": true], 422, "invalid_request"),
    ]
    for (operation, body, status, code) in cases {
      let response = try session.call(operation, body)
      #expect(response.status == status, "\(operation) \(body.encodedString)")
      #expect(response.json["code"]?.stringValue == code, "\(operation) \(body.encodedString)")
      #expect(response.header("Content-Type") == "application/problem+json")
      #expect(response.json["type"]?.stringValue?.isEmpty == false)
      #expect(response.json["title"]?.stringValue?.isEmpty == false)
      #expect(response.json["detail"]?.stringValue?.isEmpty == false)
      #expect(response.json["status"]?.intValue == status)
    }
    #expect(try session.get().json["version"] == 1)
  }

  @Test("a refused batch names the op and changes nothing", arguments: TestBackend.allCases)
  func batch(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let ops: JSONValue = [
      "ops": [
        ["op": "push", "route": "detail", "params": ["id": 1]],
        ["op": "present", "route": "settings"],
        ["op": "push", "route": "nowhere"],
      ]
    ]
    let refused = try session.call("batch", ops)
    #expect(refused.status == 422)
    #expect(refused.json["opIndex"] == 2)
    #expect(try session.get().json["version"] == 1)
    let applied = try session.call(
      "batch",
      [
        "ops": [
          ["op": "push", "route": "detail", "params": ["id": 1]],
          ["op": "present", "route": "settings"],
        ]
      ])
    #expect(applied.status == 200)
    #expect(applied.json["session"]?["version"] == 2)
    #expect(TestSession.events(applied).count == 2)
  }

  @Test("PUT state keeps the common prefix and its ids", arguments: TestBackend.allCases)
  func putState(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let response = try client.json(
      "PUT", "\(session.path)/state", token: session.token,
      body: [
        "path": [
          ["route": "master", "presentation": "root"],
          ["route": "detail", "params": ["id": 1], "presentation": "push"],
          ["route": "detail", "params": ["id": 2], "presentation": "push"],
        ]
      ])
    #expect(response.status == 200)
    let ids = response.json["session"]?["path"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
    #expect(ids == ["c1", "c2", "c3"])
  }

  @Test(
    "If-Match applies only at that version; 412 carries the current one",
    arguments: TestBackend.allCases)
  func ifMatch(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let stale = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("If-Match", "\"7\"")])
    #expect(stale.status == 412)
    #expect(stale.json["code"] == "version_mismatch")
    #expect(stale.json["version"] == 1)
    let fresh = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("If-Match", "\"1\"")])
    #expect(fresh.status == 200)
    #expect(fresh.header("ETag") == "\"2\"")
  }

  @Test(
    "a percent-encoded If-Match, as some generated clients send it, is read decoded",
    arguments: TestBackend.allCases)
  func percentEncodedIfMatch(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let stale = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("If-Match", "%227%22")])
    #expect(stale.status == 412)
    let fresh = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("If-Match", "%221%22")])
    #expect(fresh.status == 200)
  }

  @Test(
    "Prefer: return=minimal answers {version, events} without the state, and says so",
    arguments: TestBackend.allCases)
  func preferReturnMinimal(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let minimal = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("Prefer", "return=minimal")])
    #expect(minimal.status == 200)
    #expect(minimal.header("Preference-Applied") == "return=minimal")
    #expect(minimal.header("ETag") == "\"2\"")
    #expect(minimal.json.objectValue?.keys == ["version", "events"])
    #expect(minimal.json["version"] == 2)
    #expect(TestSession.events(minimal).map(\.type) == ["coordinator.started"])
    // The change is made all the same, and a later read shows it.
    #expect(TestSession.routes(try session.get()) == ["master", "detail"])
    // Teardown and PUT state are mutations too; without the preference, the full answer.
    let torn = try client.json(
      "DELETE", "\(session.path)/coordinators/c2", token: session.token,
      headers: [("Prefer", "return=minimal")])
    #expect(torn.json.objectValue?.keys == ["version", "events"])
    let full = try session.call("push", ["route": "detail", "params": ["id": 2]])
    #expect(full.header("Preference-Applied") == nil)
    #expect(full.json["session"]?["version"] == 4)
  }

  @Test(
    "every state carries allowed: GET, creation and mutation answers",
    arguments: TestBackend.allCases)
  func allowedInEveryState(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let created = session.created.json["session"]?["allowed"]
    #expect(created?["push"] == ["detail"])
    #expect(created?["pop"] == false)
    let pushed = try session.call("push", ["route": "detail", "params": ["id": 1]])
    #expect(pushed.json["session"]?["allowed"]?["pop"] == true)
    #expect(pushed.json["session"]?["allowed"]?["teardown"] == ["c2"])
    let state = try session.get().json
    #expect(state["allowed"]?["back"] == true)
    #expect(state["allowed"]?["sheet"] == ["detail", "settings"])
  }

  @Test(
    "tokens: none is 401, a wrong one and an unknown session are the same 404",
    arguments: TestBackend.allCases)
  func auth(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let missing = try client.request("GET", session.path)
    #expect(missing.status == 401)
    #expect(missing.header("WWW-Authenticate") == "Bearer")
    let wrong = try client.json("GET", session.path, token: String(repeating: "A", count: 43))
    let unknown = try client.json("GET", "/v1/sessions/nosuchsession", token: session.token)
    #expect(wrong.status == 404)
    #expect(unknown.status == 404)
    #expect(wrong.body == unknown.body)
    let malformed = try client.json("GET", session.path, token: "not-a-token")
    #expect(malformed.status == 401)
    #expect(malformed.json["code"] == "invalid_token")
  }

  @Test(
    "malformed JSON 400, wrong media type 415, deep nesting refused, huge body 413",
    arguments: [TestBackend.live])
  func hostileBodies(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let session = try TestSession(client)
    let auth = [("Authorization", "Bearer \(session.token)")]
    let malformed = try client.request(
      "POST", "\(session.path)/push", headers: auth + [("Content-Type", "application/json")],
      body: Array(#"{"route": "detail""#.utf8))
    #expect(malformed.status == 400)
    #expect(malformed.json["code"] == "malformed_json")
    let mediaType = try client.request(
      "POST", "\(session.path)/push", headers: auth + [("Content-Type", "text/plain")],
      body: Array(#"{"route":"detail"}"#.utf8))
    #expect(mediaType.status == 415)
    let nested = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
    let deep = try client.request(
      "POST", "\(session.path)/pop", headers: auth + [("Content-Type", "application/json")],
      body: Array(#"{"result":\#(nested)}"#.utf8))
    #expect(deep.status == 400)
    let huge = try client.request(
      "POST", "\(session.path)/push", headers: auth + [("Content-Type", "application/json")],
      body: [UInt8](repeating: UInt8(ascii: " "), count: 200_000))
    #expect(huge.status == 413)
    #expect(try client.request("GET", "/healthz").status == 200)
  }

  @Test("unknown path 404, wrong method 405 with Allow", arguments: TestBackend.allCases)
  func routing(backend: TestBackend) throws {
    let app = try TestApp(backend)
    let client = app.client
    defer { withExtendedLifetime(app) {} }
    let notFound = try client.request("GET", "/v1/nothing")
    #expect(notFound.status == 404)
    let wrongMethod = try client.request("PATCH", "/v1/sessions")
    #expect(wrongMethod.status == 405)
    #expect(wrongMethod.header("Allow")?.contains("POST") == true)
  }

  @Test(
    "creation beyond --max-sessions is refused with 503 and Retry-After",
    arguments: TestBackend.allCases)
  func sessionLimit(backend: TestBackend) throws {
    let app = try TestApp(backend) { configuration in
      configuration.store.maxSessions = 2
      configuration.store.maxSessionsPerClient = 2
    }
    _ = try app.session()
    _ = try app.session()
    let refused = try app.client.json("POST", "/v1/sessions")
    #expect(refused.status == 503)
    #expect(refused.header("Retry-After") != nil)
    #expect(refused.json["code"] == "too_many_sessions")
  }

  /// The binary's default for --max-sessions-per-ip: a process of its own.
  @Test("one client address holds at most a tenth of --max-sessions by default: 429 beyond")
  func sessionsPerClient() throws {
    let server = try ServerProcess(["--max-sessions", "20"])
    defer { server.stop() }
    let first = try TestSession(server.client)
    _ = try TestSession(server.client)
    let refused = try server.client.json("POST", "/v1/sessions")
    #expect(refused.status == 429)
    #expect(refused.json["code"] == "too_many_sessions_for_client")
    #expect(Int(refused.header("Retry-After") ?? "") ?? 0 >= 1)
    // Ending one frees its place.
    #expect(try server.client.json("DELETE", first.path, token: first.token).status == 204)
    #expect(try server.client.json("POST", "/v1/sessions").status == 201)
  }
}

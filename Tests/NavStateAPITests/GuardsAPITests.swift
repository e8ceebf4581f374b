import NavJSON
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import NavigationCore
import Testing

/// Context, guards and leave guards over HTTP (docs/behaviour.md sections 9 to 11): each answer's status, code and
/// members, in process.
@Suite struct GuardsAPITests {
  static let key = "guards-api-backend-key-0123456789abcdef"

  private func api() throws -> InProcessAPI {
    try InProcessAPI { configuration in
      configuration.backendKeys = try? BackendKeys(fileContents: Array(Self.key.utf8))
    }
  }

  private func zumry(_ api: InProcessAPI, context: JSONValue) throws -> InProcessSession {
    let created = api.send(
      "POST", "/v1/sessions", token: Self.key, json: ["graph": "zumry", "context": context])
    #expect(created.status == 201, "\(created.json)")
    let id = try #require(created.json["session"]?["id"]?.stringValue)
    let token = try #require(created.json["token"]?.stringValue)
    return InProcessSession(api: api, id: id, token: token, created: created)
  }

  @Test func aClosedRouteWithoutRedirectIs403WithRouteAndMissing() throws {
    let api = try api()
    let session = try zumry(api, context: ["authenticated": true])
    let refused = session.call("present", ["route": "profile", "style": "sheet"])
    #expect(refused.status == 403)
    #expect(refused.code == "requirement_not_met")
    #expect(refused.json["route"] == .string("profile"))
    #expect(refused.json["missing"] == .array([.string("roles")]))
    #expect(session.get().json["version"] == session.created.json["session"]?["version"])
  }

  @Test func contextIsTheBackendsAndMergePatchDeletesWithNull() throws {
    let api = try api()
    let session = try zumry(api, context: ["authenticated": true, "plan": "pro"])
    let path = "\(session.path)/context"
    let bySession = api.send("PUT", path, token: session.token, json: ["authenticated": false])
    #expect(bySession.status == 403)
    #expect(bySession.code == "backend_only")
    let patched = api.send(
      "PATCH", path, token: Self.key, json: ["plan": .null, "roles": ["member"]],
      headers: [("Content-Type", "application/merge-patch+json")])
    #expect(patched.status == 200, "\(patched.json)")
    #expect(
      patched.json["session"]?["context"] == ["authenticated": true, "roles": ["member"]])
    #expect(patched.json["events"]?[0]?["type"] == .string("context.changed"))
    #expect(patched.header("ETag") != nil)
    let invalid = api.send("PUT", path, token: Self.key, json: ["nested": ["a": 1]])
    #expect(invalid.status == 422)
    #expect(invalid.code == "invalid_context")
    let large = api.send(
      "PUT", path, token: Self.key, json: ["big": .string(String(repeating: "x", count: 5000))])
    #expect(large.status == 422)
    #expect(large.code == "context_too_large")
    let stale = api.send(
      "PUT", path, token: Self.key, json: [:], headers: [("If-Match", "\"1\"")])
    #expect(stale.status == 412)
  }

  @Test func aCreationWithContextNeedsABackendKey() throws {
    let api = try api()
    let refused = api.send(
      "POST", "/v1/sessions", json: ["graph": "zumry", "context": ["authenticated": true]])
    #expect(refused.status == 403)
    #expect(refused.code == "backend_only")
  }

  @Test func leaveGuardsBlockUntilDiscardAndShowInTheState() throws {
    let api = try api()
    let session = try api.createSession()
    _ = session.call("push", ["route": "detail", "params": ["id": 1]])
    let guardPath = "\(session.path)/coordinators/c2/leave-guard"
    let set = api.send("PUT", guardPath, token: session.token, json: ["reason": "unsaved draft"])
    #expect(set.status == 200)
    #expect(set.json["session"]?["path"]?[1]?["leaveGuard"] == ["reason": "unsaved draft"])
    #expect(set.json["session"]?["allowed"]?["pop"] == .bool(false))
    #expect(
      set.json["session"]?["allowed"]?["leaveGuard"]
        == ["coordinator": "c2", "reason": "unsaved draft"])
    for operation in ["pop", "back"] {
      let blocked = session.call(operation)
      #expect(blocked.status == 409)
      #expect(blocked.code == "leave_blocked")
      #expect(blocked.json["coordinator"] == .string("c2"))
      #expect(blocked.json["reason"] == .string("unsaved draft"))
    }
    let batch = session.call("batch", ["ops": [["op": "pop"]]])
    #expect(batch.code == "leave_blocked")
    let discarded = session.call("batch", ["ops": [["op": "pop", "discard": true]]])
    #expect(discarded.status == 200)
    #expect(discarded.routes == ["master"])
    let empty = api.send(
      "PUT", "\(session.path)/coordinators/c1/leave-guard", token: session.token, json: [:])
    #expect(empty.status == 422)
  }

  @Test func aClearedGuardNoLongerBlocksAndTheBackendMayGuardToo() throws {
    let api = try api()
    let session = try api.createSession()
    _ = session.call("push", ["route": "detail", "params": ["id": 1]])
    let guardPath = "\(session.path)/coordinators/c2/leave-guard"
    #expect(api.send("PUT", guardPath, token: Self.key, json: ["reason": "x"]).status == 200)
    let cleared = api.send("DELETE", guardPath, token: session.token)
    #expect(cleared.status == 200)
    #expect(cleared.json["events"]?[0]?["reason"] == .null)
    #expect(session.call("pop").status == 200)
  }

  @Test func aTeardownGoesThroughALeaveGuard() throws {
    let api = try api()
    let session = try api.createSession()
    _ = session.call("push", ["route": "detail", "params": ["id": 1]])
    _ = api.send(
      "PUT", "\(session.path)/coordinators/c2/leave-guard", token: session.token,
      json: ["reason": "x"])
    let torn = api.send("DELETE", "\(session.path)/coordinators/c2", token: session.token)
    #expect(torn.status == 200)
    #expect(session.get().routes == ["master"])
  }
}

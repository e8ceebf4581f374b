import NavJSON
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import NavigationCore
import Testing

/// What an adversary and typed clients found last round, over HTTP in process: who a keyed
/// request comes from, who may give a creation's context, what the memory budget counts, and
/// graph documents as typed clients send them back.
@Suite struct AdversaryAPITests {
  static let key = "adversary-api-backend-key-0123456789abcdef"

  private func api() throws -> InProcessAPI {
    try InProcessAPI { configuration in
      configuration.backendKeys = try? BackendKeys(fileContents: Array(Self.key.utf8))
    }
  }

  @Test("the same Idempotency-Key from the token holder and from the backend are two requests")
  func idempotencyKeysPerCaller() throws {
    let api = try api()
    let session = try api.createSession(["graph": "zumry"])
    let path = "\(session.path)/context"
    let headers = [("Idempotency-Key", "k1")]
    let byToken = api.send(
      "PUT", path, token: session.token, json: ["authenticated": true], headers: headers)
    #expect(byToken.status == 403)
    #expect(byToken.code == "backend_only")
    let byBackend = api.send(
      "PUT", path, token: Self.key, json: ["authenticated": true], headers: headers)
    #expect(byBackend.status == 200, "\(byBackend.text)")
    #expect(byBackend.header("Idempotent-Replayed") == nil)
    #expect(byBackend.json["session"]?["context"] == ["authenticated": true])
    // Each replays its own answer, and only its own.
    let backendAgain = api.send(
      "PUT", path, token: Self.key, json: ["authenticated": true], headers: headers)
    #expect(backendAgain.status == 200)
    #expect(backendAgain.header("Idempotent-Replayed") == "true")
    let tokenAgain = api.send(
      "PUT", path, token: session.token, json: ["authenticated": true], headers: headers)
    #expect(tokenAgain.status == 403)
    #expect(tokenAgain.header("Idempotent-Replayed") == "true")
  }

  @Test("a creation with any context member, {} included, needs a backend key")
  func emptyContextIsBackendOnly() throws {
    let api = try api()
    let refused = api.send("POST", "/v1/sessions", json: ["graph": "zumry", "context": [:]])
    #expect(refused.status == 403)
    #expect(refused.code == "backend_only")
    let byBackend = api.send(
      "POST", "/v1/sessions", token: Self.key, json: ["graph": "zumry", "context": [:]])
    #expect(byBackend.status == 201)
    #expect(api.send("POST", "/v1/sessions", json: ["graph": "zumry"]).status == 201)
  }

  @Test("a session's context is counted in the memory budget")
  func contextIsCounted() throws {
    let api = try api()
    let bare = api.send("POST", "/v1/sessions", token: Self.key, json: ["graph": "zumry"])
    #expect(bare.status == 201)
    // Sessions only: the backend feed's items are counted too, apart.
    let before = api.store.memory.usedBytes - api.store.feed.footprint
    let big = JSONValue.object(
      JSONObject(
        (0..<30).map { .init(key: "key\($0)", value: .string(String(repeating: "x", count: 100))) })
    )
    let withContext = api.send(
      "POST", "/v1/sessions", token: Self.key, json: ["graph": "zumry", "context": big])
    #expect(withContext.status == 201, "\(withContext.text)")
    let grown = api.store.memory.usedBytes - api.store.feed.footprint - before
    // The bare session is counted too; the context's 3,000 bytes of values come on top.
    let bareCost = before
    #expect(grown > bareCost + 3_000, "bare: \(bareCost) B, with a 3 KB context: \(grown) B")
  }

  @Test("leave-guard reasons are counted in Unicode scalars, and in the memory budget")
  func leaveGuardReasons() throws {
    let api = try api()
    let session = try api.createSession()
    let root = try #require(session.created.json["session"]?["root"]?["id"]?.stringValue)
    let path = "\(session.path)/coordinators/\(root)/leave-guard"
    // One grapheme cluster of 2,001 scalars: "e" and 2,000 combining acute accents.
    let cluster = "e" + String(repeating: "\u{301}", count: 2_000)
    #expect(cluster.count == 1)
    let refused = api.send("PUT", path, token: session.token, json: ["reason": .string(cluster)])
    #expect(refused.status == 422, "\(refused.text)")
    let before = api.store.memory.usedBytes
    let longest = String(repeating: "é", count: LeaveGuard.maxReasonLength)
    let accepted = api.send("PUT", path, token: session.token, json: ["reason": .string(longest)])
    #expect(accepted.status == 200, "\(accepted.text)")
    #expect(api.store.memory.usedBytes - before >= longest.utf8.count)
  }

  @Test("GET writes next: null for any route; a graph read back and sent again means the same")
  func graphRoundTrip() throws {
    let api = try api()
    let demo = api.send("GET", "/v1/graphs/demo")
    #expect(demo.status == 200)
    let routes = try #require(demo.json["routes"]?.arrayValue)
    let settings = try #require(routes.first { $0["name"] == "settings" })
    #expect(settings["next"] == .null)
    #expect(settings.objectValue?.keys.contains("next") == true)
    // Sent back as a new graph's version 1, with what typed clients add for absent members.
    var document = try #require(demo.json.objectValue)
    document["name"] = "demo_copy"
    document["routes"] = .array(
      routes.map { route in
        guard var object = route.objectValue else { return route }
        if object["tabs"] == nil { object["tabs"] = [] }
        if object["requires"] == nil { object["requires"] = [:] }
        if object["redirect"] == nil { object["redirect"] = .null }
        return .object(object)
      })
    let put = api.send("PUT", "/v1/graphs/demo_copy", token: Self.key, json: .object(document))
    #expect(put.status == 201, "\(put.text)")
    let copy = api.send("GET", "/v1/graphs/demo_copy")
    #expect(copy.json["routes"] == demo.json["routes"], "\(copy.text)")
  }

  @Test("POST /v1/graphs/{name}/dry-run answers the report and loads nothing; backend only")
  func dryRunOperation() throws {
    let api = try api()
    _ = try api.createSession()
    var graph = try #require(api.send("GET", "/v1/graphs/demo").json.objectValue)
    graph["version"] = 2
    let report = api.send("POST", "/v1/graphs/demo/dry-run", token: Self.key, json: .object(graph))
    #expect(report.status == 200, "\(report.text)")
    #expect(report.json["sessions"] == 1)
    #expect(report.json["unchanged"] == 1)
    #expect(api.send("GET", "/v1/graphs/demo").json["version"] == 1)
    let session = try api.createSession()
    let byToken = api.send(
      "POST", "/v1/graphs/demo/dry-run", token: session.token, json: .object(graph))
    #expect(byToken.status == 403)
  }

  @Test("a PATCH of the context must say application/merge-patch+json")
  func mergePatchMediaType() throws {
    let api = try api()
    let session = try api.createSession(["graph": "zumry"])
    let asJSON = api.send(
      "PATCH", "\(session.path)/context", token: Self.key, json: ["authenticated": true])
    #expect(asJSON.status == 415)
    #expect(asJSON.code == "unsupported_media_type")
    #expect(asJSON.header("Accept-Patch") == "application/merge-patch+json")
    // The declared type goes first, and is the one read.
    let patched = api.send(
      "PATCH", "\(session.path)/context", token: Self.key, json: ["authenticated": true],
      headers: [("Content-Type", "application/merge-patch+json; charset=utf-8")])
    #expect(patched.status == 200, "\(patched.text)")
  }

  @Test("a creation whose body is not declared JSON is 415 and makes no session")
  func creationMediaType() throws {
    let api = try api()
    for headers in [[], [("Content-Type", "text/plain")]] {
      let refused = api.client.send(
        "POST", "/v1/sessions", headers: headers, body: Array("{}".utf8))
      #expect(refused.status == 415)
      #expect(refused.code == "unsupported_media_type")
    }
    #expect(api.store.liveSessions == 0)
    let created = api.send("POST", "/v1/sessions", json: [:])
    #expect(created.status == 201)
    #expect(created.json.objectValue?.keys.sorted() == ["session", "token"])
    #expect(api.store.liveSessions == 1)
  }

  @Test("a replayed change has the live answer's status, header fields and body, minimal or not")
  func replayedChangeHeaders() throws {
    let api = try api()
    let session = try api.createSession()
    for (key, minimal) in [("full-1", false), ("minimal-1", true)] {
      var headers = [("Idempotency-Key", key)]
      if minimal { headers.append(("Prefer", "return=minimal")) }
      let body: JSONValue = ["route": "detail", "params": ["id": .int(minimal ? 2 : 1)]]
      let live = session.call("push", body, headers: headers)
      let replay = session.call("push", body, headers: headers)
      #expect(live.status == 200)
      #expect(replay.status == live.status)
      #expect(replay.body == live.body)
      #expect(replay.header("Idempotent-Replayed") == "true")
      for name in ["Content-Type", "ETag", "Preference-Applied"] {
        #expect(replay.header(name) == live.header(name), "\(name), minimal: \(minimal)")
      }
      #expect((live.header("Preference-Applied") != nil) == minimal)
    }
  }
}

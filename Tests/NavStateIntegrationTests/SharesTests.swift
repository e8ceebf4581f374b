import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import NavigationCore
import Testing

/// Shares, presence, handoff codes and forks over HTTP (docs/shares.md), on the router and on
/// the listening application alike; what needs a socket (streams) on the live one.
@Suite("Shares, presence, forks and handoff")
struct SharesTests {
  static let key = "shares-test-backend-key-0123456789abcdef"

  static func app(_ backend: TestBackend) throws -> TestApp {
    try TestApp(backend) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((key + "\n").utf8))
    }
  }

  /// A graph `bank` whose `account` route has a sensitive `card`.
  static let bank: JSONValue = [
    "name": "bank", "version": 1, "root": "home",
    "routes": [
      ["name": "home", "path": "/home", "next": ["account"]],
      [
        "name": "account", "path": "/account",
        "params": ["card": ["type": "string", "sensitive": true], "tier": ["type": "string"]],
      ],
    ],
  ]

  static func share(
    _ session: TestSession, mode: String, label: String = "Support: Ana", ttl: Int? = nil,
    code: Bool? = nil, token: String? = nil
  ) throws -> TestResponse {
    var body: JSONObject = ["mode": .string(mode), "label": .string(label)]
    if let ttl { body["ttlSeconds"] = .int(ttl) }
    if let code { body["code"] = .bool(code) }
    return try session.client.json(
      "POST", "\(session.path)/shares", token: token ?? session.token, body: .object(body))
  }

  /// A share made, with its token and id.
  static func made(_ session: TestSession, mode: String, label: String = "Support: Ana") throws
    -> (id: String, token: String)
  {
    let answer = try share(session, mode: mode, label: label)
    #expect(answer.status == 201, "\(answer.text)")
    return (
      try #require(answer.json["share"]?["id"]?.stringValue),
      try #require(answer.json["token"]?.stringValue)
    )
  }

  @Test(
    "a share: 201 {share, token}, a change with share.created, its defaults and bounds",
    arguments: TestBackend.allCases)
  func create(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    let before = try session.get().json["version"]?.intValue ?? 0
    let follow = try Self.share(session, mode: "follow")
    #expect(follow.status == 201, "\(follow.text)")
    let share = follow.json["share"]
    #expect(share?["mode"] == "follow")
    #expect(share?["label"] == "Support: Ana")
    #expect(follow.json["token"]?.stringValue?.count == 43)
    #expect(follow.json["code"] == nil)
    let created = try #require(share?["createdAt"]?.stringValue.flatMap(Self.time))
    let expires = try #require(share?["expiresAt"]?.stringValue.flatMap(Self.time))
    #expect(abs(expires - created - 900) < 0.01)
    let drive = try Self.share(session, mode: "drive", label: "iPad")
    #expect(drive.status == 201)
    let driveCreated = try #require(
      drive.json["share"]?["createdAt"]?.stringValue.flatMap(Self.time))
    let driveExpires = try #require(
      drive.json["share"]?["expiresAt"]?.stringValue.flatMap(Self.time))
    #expect(abs(driveExpires - driveCreated - 86_400) < 0.01)
    // Two changes, each with its event.
    let state = try session.get().json
    #expect(state["version"]?.intValue == before + 2)
    let events =
      try session.client.json("GET", "\(session.path)/events?after=1", token: session.token)
      .json["events"]?.arrayValue ?? []
    let shareEvents = events.filter { $0["type"] == "share.created" }
    #expect(shareEvents.count == 2)
    #expect(shareEvents.first?["share"] == share?["id"])
    #expect(shareEvents.first?["mode"] == "follow")
    #expect(shareEvents.first?["label"] == "Support: Ana")
    // The state lists both, without tokens, each watched by nobody.
    let listed = state["shares"]?.arrayValue ?? []
    #expect(listed.count == 2)
    #expect(listed.allSatisfy { $0["watching"] == 0 && $0["token"] == nil })
    #expect(
      listed.first?.objectValue?.keys.sorted() == ["expiresAt", "id", "label", "mode", "watching"])
    // The backend may share too.
    let byBackend = try Self.share(session, mode: "follow", token: Self.key)
    #expect(byBackend.status == 201)
    // Bounds.
    for (body, what) in [
      (["mode": "follow", "label": "", "ttlSeconds": 60] as JSONValue, "empty label"),
      (["mode": "follow", "label": .string(String(repeating: "é", count: 65))], "65 characters"),
      (["mode": "follow", "label": "x", "ttlSeconds": 3601], "follow over an hour"),
      (["mode": "drive", "label": "x", "ttlSeconds": 2_592_001], "drive over 30 days"),
      (["mode": "drive", "label": "x", "ttlSeconds": 0], "no lifetime"),
      (["mode": "watch", "label": "x"], "no such mode"),
      (["mode": "follow", "label": "x", "code": "yes"], "code not a boolean"),
      (["mode": "follow", "label": "x", "extra": 1], "unknown member"),
    ] {
      let refused = try session.client.json(
        "POST", "\(session.path)/shares", token: session.token, body: body)
      #expect(refused.status == 422, "\(what): \(refused.text)")
      #expect(refused.code == "invalid_request", "\(what)")
    }
    let longest = try Self.share(
      session, mode: "follow", label: String(repeating: "é", count: 64), ttl: 3600)
    #expect(longest.status == 201)
    let drive30 = try Self.share(session, mode: "drive", label: "x", ttl: 2_592_000)
    #expect(drive30.status == 201)
    // A creation hands out a token: it takes no Idempotency-Key.
    let keyed = try session.client.json(
      "POST", "\(session.path)/shares", token: session.token,
      body: ["mode": "follow", "label": "x"], headers: [("Idempotency-Key", "k1")])
    #expect(keyed.status == 400)
  }

  static func time(_ text: String) -> Double? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)?.timeIntervalSince1970
  }

  @Test(
    "at most 16 live shares: 409 too_many_shares; a revocation makes room",
    arguments: TestBackend.allCases)
  func limit(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    var ids: [String] = []
    for index in 0..<16 {
      ids.append(try Self.made(session, mode: "follow", label: "s\(index)").id)
    }
    let refused = try Self.share(session, mode: "drive", label: "one more")
    #expect(refused.status == 409)
    #expect(refused.code == "too_many_shares")
    let revoked = try session.client.json(
      "DELETE", "\(session.path)/shares/\(ids[0])", token: session.token)
    #expect(revoked.status == 204)
    #expect(try Self.share(session, mode: "drive", label: "one more").status == 201)
  }

  @Test(
    "a share token may not share: 403 share_cannot_share for creating and revoking",
    arguments: TestBackend.allCases)
  func sharesCannotShare(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    for mode in ["follow", "drive"] {
      let (id, token) = try Self.made(session, mode: mode)
      let create = try Self.share(session, mode: "follow", token: token)
      #expect(create.status == 403)
      #expect(create.code == "share_cannot_share", "\(mode)")
      let revoke = try session.client.json("DELETE", "\(session.path)/shares/\(id)", token: token)
      #expect(revoke.status == 403)
      #expect(revoke.code == "share_cannot_share", "\(mode)")
    }
  }

  @Test(
    "follow reads only, redacted and without context: state, ?at, history, events, presence",
    arguments: TestBackend.allCases)
  func follow(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let loaded = try server.client.json("PUT", "/v1/graphs/bank", token: Self.key, body: Self.bank)
    #expect(loaded.status == 201, "\(loaded.text)")
    let session = try server.session(["graph": "bank"], token: Self.key)
    let patched = try session.client.json(
      "PUT", "\(session.path)/context", token: Self.key, body: ["plan": "platinum"])
    #expect(patched.status == 200, "\(patched.text)")
    #expect(
      try session.call("push", ["route": "account", "params": ["card": "4111", "tier": "gold"]])
        .status == 200)
    let (followID, follow) = try Self.made(session, mode: "follow")
    _ = try Self.made(session, mode: "drive", label: "iPad")
    let owner = try session.get().json
    #expect(owner["context"] == ["plan": "platinum"])
    #expect(owner["path"]?[1]?["params"]?["card"] == "4111")
    #expect(owner["shares"]?.arrayValue?.count == 2)

    let seen = try session.client.json("GET", session.path, token: follow)
    #expect(seen.status == 200)
    #expect(seen.json["context"] == nil)
    #expect(seen.json["path"]?[1]?["params"]?["card"] == "[redacted]")
    #expect(seen.json["path"]?[1]?["params"]?["tier"] == "gold")
    #expect(seen.json["root"]?["children"]?[0]?["params"]?["card"] == "[redacted]")
    #expect(seen.json["shares"]?.arrayValue?.map { $0["id"] } == [.string(followID)])
    // Nothing is allowed to a follow share, in the shape `allowed` always has.
    #expect(owner["allowed"]?["pop"] == true)
    #expect(seen.json["allowed"]?["pop"] == false)
    #expect(seen.json["allowed"]?["push"] == [])
    #expect(seen.json["allowed"]?.objectValue?.keys == owner["allowed"]?.objectValue?.keys)
    #expect(!seen.text.contains("4111"))
    #expect(!seen.text.contains("platinum"))
    let version = try #require(owner["version"]?.intValue)
    for at in 1...version {
      let past = try session.client.json("GET", "\(session.path)?at=\(at)", token: follow)
      #expect(past.status == 200)
      #expect(past.json["context"] == nil)
      #expect(!past.text.contains("4111"))
    }
    let history = try session.client.json("GET", "\(session.path)/history", token: follow)
    #expect(history.status == 200)
    #expect(history.text.contains("[redacted]"))
    #expect(!history.text.contains("4111"))
    let events = try session.client.json("GET", "\(session.path)/events?after=0", token: follow)
    #expect(events.status == 200)
    #expect(!events.text.contains("4111"))
    #expect(!events.text.contains("platinum"))
    let changed = events.json["events"]?.arrayValue?.first { $0["type"] == "context.changed" }
    #expect(changed != nil)
    #expect(changed?["context"] == nil)
    #expect(
      try session.client.json("GET", "\(session.path)/presence", token: follow).status == 200)
    // Every change is read_only, whatever it is.
    let attempts: [(String, String, JSONValue?)] = [
      ("POST", "\(session.path)/push", ["route": "account"]),
      ("POST", "\(session.path)/pop", nil),
      ("POST", "\(session.path)/back", nil),
      ("PUT", "\(session.path)/state", ["path": [["route": "home"]]]),
      ("POST", "\(session.path)/restore", ["version": 1]),
      ("PUT", "\(session.path)/context", ["plan": "free"]),
      ("PUT", "\(session.path)/coordinators/c2/leave-guard", ["reason": "x"]),
      ("DELETE", "\(session.path)/coordinators/c2", nil),
      ("POST", "\(session.path)/fork", nil),
      ("DELETE", session.path, nil),
    ]
    for (method, path, body) in attempts {
      let refused = try session.client.json(method, path, token: follow, body: body)
      #expect(refused.status == 403, "\(method) \(path)")
      #expect(refused.code == "read_only", "\(method) \(path): \(refused.text)")
    }
    let recording = try session.client.json("GET", "\(session.path)/recording", token: follow)
    #expect(recording.status == 403)
    #expect(recording.code == "read_only")
    #expect(try session.get().json["version"]?.intValue == version)
  }

  @Test(
    "drive does what the session's token does, but share or delete; it sees its own share",
    arguments: TestBackend.allCases)
  func drive(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    _ = try Self.made(session, mode: "follow")
    let (driveID, drive) = try Self.made(session, mode: "drive", label: "iPad")
    let pushed = try session.client.json(
      "POST", "\(session.path)/push", token: drive, body: ["route": "detail", "params": ["id": 3]])
    #expect(pushed.status == 200)
    #expect(pushed.routes == ["master", "detail"])
    #expect(pushed.json["session"]?["shares"]?.arrayValue?.map { $0["id"] } == [.string(driveID)])
    // Keys of its own: the session's token replays nothing of the share's.
    let keyed = try session.client.json(
      "POST", "\(session.path)/pop", token: drive, headers: [("Idempotency-Key", "same")])
    #expect(keyed.status == 200)
    let ownerKeyed = try session.call("pop", nil, headers: [("Idempotency-Key", "same")])
    #expect(ownerKeyed.status == 409, "\(ownerKeyed.text)")  // a new request: nothing to pop
    #expect(ownerKeyed.header("Idempotent-Replayed") == nil)
    #expect(try session.client.json("GET", session.path, token: drive).json["context"] != nil)
    let deleted = try session.client.json("DELETE", session.path, token: drive)
    #expect(deleted.status == 403)
    #expect(deleted.code == "read_only")
    let context = try session.client.json(
      "PUT", "\(session.path)/context", token: drive, body: ["plan": "x"])
    #expect(context.code == "backend_only")
    let fork = try session.client.json("POST", "\(session.path)/fork", token: drive)
    #expect(fork.status == 201)
    #expect(try session.get().status == 200)
  }

  @Test(
    "revoking: 204, share.revoked, the token then answers 404 as a wrong one; unknown 404",
    arguments: TestBackend.allCases)
  func revoke(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    let (id, token) = try Self.made(session, mode: "drive")
    #expect(try session.client.json("GET", session.path, token: token).status == 200)
    let version = try session.get().json["version"]?.intValue ?? 0
    let revoked = try session.client.json("DELETE", "\(session.path)/shares/\(id)", token: Self.key)
    #expect(revoked.status == 204)
    let state = try session.get().json
    #expect(state["version"]?.intValue == version + 1)
    #expect(state["shares"] == [])
    let events =
      try session.client.json("GET", "\(session.path)/events?after=0", token: session.token)
      .json["events"]?.arrayValue ?? []
    let revokedEvent = events.last { $0["type"] == "share.revoked" }
    #expect(revokedEvent?["share"] == .string(id))
    #expect(revokedEvent?["reason"] == "revoked")
    for path in [session.path, "\(session.path)/events", "\(session.path)/presence"] {
      let gone = try session.client.json("GET", path, token: token)
      #expect(gone.status == 404, "\(path)")
      #expect(gone.code == "session_not_found")
    }
    let again = try session.client.json(
      "DELETE", "\(session.path)/shares/\(id)", token: session.token)
    #expect(again.status == 404)
    #expect(again.code == "share_not_found")
    let history = try session.client.json("GET", "\(session.path)/history", token: session.token)
    let ops = history.json["entries"]?.arrayValue?.compactMap { $0["op"]?["op"]?.stringValue } ?? []
    #expect(ops.suffix(2) == ["share", "revokeShare"])
  }

  @Test(
    "a share expires by itself: share.revoked {reason: expired}, by the server",
    arguments: TestBackend.allCases)
  func expiry(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    let answer = try Self.share(session, mode: "follow", ttl: 1, code: true)
    let token = try #require(answer.json["token"]?.stringValue)
    let code = try #require(answer.json["code"]?.stringValue)
    #expect(try session.client.json("GET", session.path, token: token).status == 200)
    let deadline = Date().addingTimeInterval(5)
    var events: [JSONValue] = []
    while Date() < deadline {
      events =
        try session.client.json("GET", "\(session.path)/events?after=0", token: session.token)
        .json["events"]?.arrayValue ?? []
      if events.contains(where: { $0["type"] == "share.revoked" }) { break }
      Thread.sleep(forTimeInterval: 0.1)
    }
    let expired = events.last { $0["type"] == "share.revoked" }
    #expect(expired?["reason"] == "expired")
    #expect(try session.client.json("GET", session.path, token: token).status == 404)
    let history = try session.client.json("GET", "\(session.path)/history", token: session.token)
    let last = history.json["entries"]?.arrayValue?.last
    #expect(last?["by"] == "server")
    #expect(
      last?["op"] == [
        "op": "revokeShare", "share": answer.json["share"]?["id"] ?? .null, "reason": "expired",
      ])
    // Its handoff code ended with it.
    let redeemed = try server.client.json("POST", "/v1/handoffs", body: ["code": .string(code)])
    #expect(redeemed.status == 404)
  }

  @Test(
    "handoff codes: 10 characters, once, then 404; 429 after 10 failures a minute",
    arguments: TestBackend.allCases)
  func handoff(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    _ = try session.call("push", ["route": "detail", "params": ["id": 9]])
    let answer = try Self.share(session, mode: "drive", label: "iPad", code: true)
    let code = try #require(answer.json["code"]?.stringValue)
    #expect(code.count == 10)
    #expect(code.allSatisfy { "23456789ABCDEFGHJKMNPQRSTUVWXYZ".contains($0) })
    // Typed as people type it: lower case, in two halves.
    let typed = code.lowercased().prefix(5) + "-" + code.lowercased().suffix(5)
    let redeemed = try server.client.json(
      "POST", "/v1/handoffs", body: ["code": .string(String(typed))])
    #expect(redeemed.status == 200, "\(redeemed.text)")
    #expect(redeemed.json["token"] == answer.json["token"])
    #expect(redeemed.json["share"] == answer.json["share"])
    #expect(redeemed.json["session"]?["id"] == .string(session.id))
    #expect(redeemed.routes == ["master", "detail"])
    #expect(redeemed.json["session"]?["shares"]?.arrayValue?.count == 1)
    // The token works as the share's.
    let token = try #require(redeemed.json["token"]?.stringValue)
    #expect(
      try session.client.json("POST", "\(session.path)/pop", token: token).status == 200)
    let second = try server.client.json("POST", "/v1/handoffs", body: ["code": .string(code)])
    #expect(second.status == 404)
    #expect(second.code == "unknown_code")
    // A follow share's code gives the state as a follow share sees it.
    let follow = try Self.share(session, mode: "follow", code: true)
    let followed = try server.client.json(
      "POST", "/v1/handoffs", body: ["code": follow.json["code"] ?? .null])
    #expect(followed.status == 200)
    #expect(followed.json["session"]?["context"] == nil)
    #expect(try server.client.json("POST", "/v1/handoffs", body: ["nope": 1]).status == 422)
    // One failure so far (the used code); nine more are 404, the next 429.
    var statuses: [Int] = []
    for index in 0..<10 {
      let guess: JSONValue = ["code": .string("ZZZZZZZZZ\(index % 8 + 2)")]
      statuses.append(try server.client.json("POST", "/v1/handoffs", body: guess).status)
    }
    #expect(statuses.prefix(9).allSatisfy { $0 == 404 }, "\(statuses)")
    #expect(statuses.last == 429, "\(statuses)")
    let throttled = try server.client.json("POST", "/v1/handoffs", body: ["code": "ZZZZZZZZZZ"])
    #expect(throttled.status == 429)
    #expect(throttled.code == "too_many_attempts")
    #expect(Int(throttled.header("Retry-After") ?? "") ?? 0 >= 1)
  }

  @Test(
    "forks: the path, params and context of a version, ids anew, forkedFrom, history from 1",
    arguments: TestBackend.allCases)
  func fork(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session(["context": ["plan": "gold"]], token: Self.key)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    _ = try session.call("present", ["route": "settings", "style": "sheet"])
    let guarded = try session.client.json(
      "PUT", "\(session.path)/coordinators/c3/leave-guard", token: session.token,
      body: ["reason": "unsaved"])
    #expect(guarded.status == 200, "\(guarded.text)")
    _ = try Self.made(session, mode: "follow")
    let source = try session.get().json
    let atTwo = try session.client.json("GET", "\(session.path)?at=2", token: session.token).json

    let forked = try session.client.json(
      "POST", "\(session.path)/fork", token: session.token, body: ["version": 2])
    #expect(forked.status == 201, "\(forked.text)")
    let copy = try #require(forked.json["session"])
    let copyToken = try #require(forked.json["token"]?.stringValue)
    #expect(copy["id"] != source["id"])
    #expect(copy["version"] == 1)
    #expect(copy["forkedFrom"] == ["session": .string(session.id), "version": 2])
    #expect(copy["graph"] == source["graph"])
    #expect(copy["graphVersion"] == source["graphVersion"])
    #expect(
      copy["path"]?.arrayValue?.map { [$0["route"], $0["params"], $0["presentation"]] }
        == atTwo["path"]?.arrayValue?.map { [$0["route"], $0["params"], $0["presentation"]] })
    #expect(copy["context"] == ["plan": "gold"])
    #expect(copy["shares"] == [])
    #expect(copy["pending"] == nil)
    let forkPath = "/v1/sessions/\(copy["id"]?.stringValue ?? "")"
    let history = try server.client.json("GET", "\(forkPath)/history", token: copyToken).json
    #expect(history["entries"]?.arrayValue?.count == 1)
    #expect(
      history["entries"]?[0]?["op"] == ["op": "fork", "session": .string(session.id), "version": 2])
    #expect(history["entries"]?[0]?["version"] == 1)

    // The current version by default; its leave guard and share are not copied.
    let current = try session.client.json("POST", "\(session.path)/fork", token: Self.key)
    #expect(current.status == 201)
    let now = try #require(current.json["session"])
    #expect(now["forkedFrom"]?["version"] == source["version"])
    #expect(
      now["path"]?.arrayValue?.map { $0["route"] }
        == source["path"]?.arrayValue?.map { $0["route"] })
    #expect(now["path"]?.arrayValue?.allSatisfy { $0["leaveGuard"] == nil } == true)
    #expect(source["path"]?.arrayValue?.contains { $0["leaveGuard"] != nil } == true)
    #expect(now["shares"] == [])
    // The copy is a session of its own: changes to it leave the source alone.
    let copySession = TestSession(
      client: server.client, id: now["id"]?.stringValue ?? "",
      token: current.json["token"]?.stringValue ?? "")
    #expect(try copySession.call("back").status == 200)
    #expect(try session.get().json["version"] == source["version"])
    // Versions that are none: 400, as ?at says.
    let bad = try session.client.json(
      "POST", "\(session.path)/fork", token: session.token, body: ["version": 0])
    #expect(bad.status == 400)
    #expect(bad.code == "invalid_version")
  }

  @Test(
    "watching and presence: streams by credential, presence events once a second, no change",
    arguments: [TestBackend.live])
  func presence(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    let (followID, follow) = try Self.made(session, mode: "follow", label: "Support: Ana")
    let version = try session.get().json["version"]
    let own = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token,
      includesPresence: true)
    #expect(own.next()?.type == "reset")
    let watcher = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: follow)
    let second = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: follow)
    #expect(watcher.next()?.type == "reset")
    #expect(second.next()?.type == "reset")
    // Presence messages within about a second: no id, the body GET .../presence gives.
    var presences: [ReceivedEvent] = []
    let deadline = Date().addingTimeInterval(3)
    while Date() < deadline {
      guard let event = own.next(timeout: 0.5) else { continue }
      if event.type == "presence" { presences.append(event) }
    }
    #expect(!presences.isEmpty)
    #expect(presences.count <= 3, "at most once a second: \(presences.count) in 3 s")
    #expect(presences.allSatisfy { $0.id == nil })
    let last = try #require(presences.last.flatMap { try? JSONParser.parse($0.data) })
    let clients = last["clients"]?.arrayValue ?? []
    #expect(clients.count == 2)
    let shareClient = clients.first { $0["kind"] == "share" }
    #expect(shareClient?["share"] == .string(followID))
    #expect(shareClient?["label"] == "Support: Ana")
    #expect(shareClient?["streams"] == 2)
    #expect(clients.first { $0["kind"] == "session" }?["streams"] == 1)
    let polled = try session.client.json("GET", "\(session.path)/presence", token: session.token)
    #expect(polled.json == last)
    #expect(try session.get().json["shares"]?[0]?["watching"] == 2)
    #expect(try session.get().json["version"] == version)
    second.disconnect()
    watcher.disconnect()
    var after: JSONValue?
    let closing = Date().addingTimeInterval(4)
    while Date() < closing {
      guard let event = own.next(timeout: 0.5) else { continue }
      if event.type == "presence" { after = try? JSONParser.parse(event.data) }
      if after?["clients"]?.arrayValue?.count == 1 { break }
    }
    #expect(after?["clients"]?.arrayValue?.map { $0["kind"] } == ["session"])
    #expect(try session.get().json["shares"]?[0]?["watching"] == 0)
  }

  @Test(
    "a revoked share's streams get share.revoked, then end; a follow stream is redacted",
    arguments: [TestBackend.live])
  func revokedStreamsEnd(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let loaded = try server.client.json("PUT", "/v1/graphs/bank", token: Self.key, body: Self.bank)
    #expect(loaded.status == 201)
    let session = try server.session(["graph": "bank"], token: Self.key)
    let (id, follow) = try Self.made(session, mode: "follow")
    let stream = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: follow)
    let owner = try EventStreamClient(
      port: server.port, path: "\(session.path)/events/stream", token: session.token)
    let reset = try #require(stream.next())
    #expect(reset.type == "reset")
    #expect(!reset.data.contains("\"context\""))
    #expect(owner.next()?.type == "reset")
    _ = try session.call("push", ["route": "account", "params": ["card": "4111", "tier": "gold"]])
    _ = try session.client.json(
      "PUT", "\(session.path)/context", token: Self.key, body: ["plan": "gold"])
    let revoked = try session.client.json(
      "DELETE", "\(session.path)/shares/\(id)", token: session.token)
    #expect(revoked.status == 204)
    let events = stream.collect(timeout: 5).filter { $0.type != "presence" }
    #expect(stream.ended, "the stream ends once the share is revoked")
    #expect(events.map(\.type) == ["coordinator.started", "context.changed", "share.revoked"])
    #expect(!events.contains { $0.data.contains("4111") || $0.data.contains("\"context\"") })
    #expect(events.first?.data.contains("[redacted]") == true)
    // The owner's stream goes on, unredacted.
    let ownerEvents = owner.collect(timeout: 1.5).filter { $0.type != "presence" }
    #expect(
      ownerEvents.map(\.type).prefix(3) == [
        "coordinator.started", "context.changed", "share.revoked",
      ])
    #expect(ownerEvents.first?.data.contains("4111") == true)
    #expect(!owner.ended)
  }
}

/// What the HTTP layer cannot show on its own: races between a share's token check and its
/// revocation, and the policies around shares.
@Suite("Shares: revocation races and policies")
struct ShareRaceTests {
  /// A stream that keeps what it is sent.
  final class Sink: EventSink, @unchecked Sendable {
    var written: [UInt8] = []
    func write(_ bytes: [UInt8]) -> Bool {
      written += bytes
      return true
    }
    func finish() {}
  }

  @Test("a share revoked after its token was checked changes nothing and attaches no stream")
  func revokedAfterCheck() throws {
    let server = try SharesTests.app(.router)
    defer { server.stop() }
    let store = try #require(server.store)
    let session = try server.session()
    let (id, token) = try SharesTests.made(session, mode: "drive")
    // The token checked, as a request does before it takes the session's lock.
    let record = try store.authorize(id: session.id, token: token)
    let caller = Caller.share(id: id, mode: .drive)
    let revoked = try session.client.json(
      "DELETE", "\(session.path)/shares/\(id)", token: session.token)
    #expect(revoked.status == 204)
    let version = try session.get().json["version"]
    #expect(throws: EngineRefusal.self) {
      _ = try store.apply(
        .push(RouteRequest(route: "detail", params: ["id": 1])), to: record, by: caller,
        precondition: nil, minimal: true
      ).version
    }
    #expect(try session.get().json["version"] == version)
    #expect(throws: EngineRefusal.self) {
      _ = try store.followEvents(of: record, after: nil, client: "127.0.0.1", caller: caller) {
        _, _ in Sink()
      }
    }
    // The session's own token still does both.
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
  }

  @Test("where only the backend creates sessions, only the backend forks them")
  func forkUnderBackendCreation() throws {
    let server = try TestApp(.router) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((SharesTests.key + "\n").utf8))
      $0.store.sessionCreation = .backend
    }
    defer { server.stop() }
    let session = try server.session(nil, token: SharesTests.key)
    let (_, drive) = try SharesTests.made(session, mode: "drive")
    for token in [session.token, drive] {
      let refused = try session.client.json("POST", "\(session.path)/fork", token: token)
      #expect(refused.status == 403)
      #expect(refused.code == "backend_only")
    }
    let forked = try session.client.json("POST", "\(session.path)/fork", token: SharesTests.key)
    #expect(forked.status == 201)
  }

  @Test("revoking with an Idempotency-Key: the repeat is the same 204, replayed")
  func revokeReplay() throws {
    let server = try SharesTests.app(.router)
    defer { server.stop() }
    let session = try server.session()
    let (id, _) = try SharesTests.made(session, mode: "follow")
    let headers = [("Idempotency-Key", "revoke-1")]
    let first = try session.client.json(
      "DELETE", "\(session.path)/shares/\(id)", token: session.token, headers: headers)
    let again = try session.client.json(
      "DELETE", "\(session.path)/shares/\(id)", token: session.token, headers: headers)
    #expect(first.status == 204)
    #expect(again.status == 204)
    #expect(again.body.isEmpty)
    #expect(again.header("Idempotent-Replayed") == "true")
  }

  @Test(
    "presence messages only on shared sessions, and one more when the last share ends",
    arguments: [TestBackend.live])
  func presenceOnlyWhenShared(backend: TestBackend) throws {
    let server = try SharesTests.app(backend)
    defer { server.stop() }
    let session = try server.session()
    let path = "\(session.path)/events/stream"
    let own = try EventStreamClient(
      port: server.port, path: path, token: session.token, includesPresence: true)
    let second = try EventStreamClient(
      port: server.port, path: path, token: session.token, includesPresence: true)
    #expect(own.next()?.type == "reset")
    #expect(second.next()?.type == "reset")
    // Never shared: the streams get what they always got.
    #expect(own.collect(timeout: 1.5).filter { $0.type == "presence" }.isEmpty)
    let (id, follow) = try SharesTests.made(session, mode: "follow")
    let watcher = try EventStreamClient(port: server.port, path: path, token: follow)
    #expect(watcher.next()?.type == "reset")
    var sawWatcher = false
    let deadline = Date().addingTimeInterval(4)
    while Date() < deadline {
      guard let event = own.next(timeout: 0.5) else { continue }
      if event.type == "presence", event.data.contains(#""kind":"share""#) {
        sawWatcher = true
        break
      }
    }
    #expect(sawWatcher)
    // The last share ends: one more message says nobody else watches.
    #expect(
      try session.client.json("DELETE", "\(session.path)/shares/\(id)", token: session.token)
        .status == 204)
    var last: String?
    let closing = Date().addingTimeInterval(4)
    while Date() < closing {
      guard let event = own.next(timeout: 0.5) else { continue }
      if event.type == "presence" { last = event.data }
      if let last, !last.contains(#""kind":"share""#) { break }
    }
    #expect(last?.contains(#""kind":"share""#) == false, "\(last ?? "no presence")")
  }
}

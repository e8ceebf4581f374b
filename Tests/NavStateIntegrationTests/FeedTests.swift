import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

/// The backend feed over HTTP (docs/behaviour.md, "The backend feed"): its items, cursors,
/// retention, formats and funnels, on the router and on the listening application alike.
@Suite("The backend feed")
struct FeedTests {
  static let key = "feed-test-backend-key-0123456789abcdef"

  static func app(_ backend: TestBackend, retention: Int? = nil) throws -> TestApp {
    try TestApp(backend) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((key + "\n").utf8))
      if let retention { $0.store.feedRetention = retention }
    }
  }

  static func feed(_ server: TestApp, _ query: String = "") throws -> TestResponse {
    try server.client.json("GET", "/v1/feed\(query)", token: key)
  }

  /// Every item after `cursor`, read page by page.
  static func items(_ server: TestApp, after cursor: String? = nil, query: String = "") throws
    -> [JSONValue]
  {
    var all: [JSONValue] = []
    var after = cursor
    while true {
      var parameters = ["limit=1000"]
      if let after { parameters.append("after=\(after)") }
      if !query.isEmpty { parameters.append(query) }
      let page = try feed(server, "?" + parameters.joined(separator: "&"))
      #expect(page.status == 200, "\(page.text)")
      let events = page.json["events"]?.arrayValue ?? []
      all += events
      guard !events.isEmpty, let next = page.json["next"]?.stringValue else { return all }
      after = next
    }
  }

  /// Every item's id, from the oldest kept, through any client.
  static func pullAll(_ client: any TestClient) throws -> [String] {
    var ids: [String] = []
    var after: String?
    while true {
      let query = after.map { "?limit=1000&after=\($0)" } ?? "?limit=1000"
      let page = try client.json("GET", "/v1/feed\(query)", token: key)
      let events = page.json["events"]?.arrayValue ?? []
      ids += events.compactMap { $0["id"]?.stringValue }
      guard !events.isEmpty else { return ids }
      after = page.json["next"]?.stringValue
    }
  }

  private func types(_ items: [JSONValue]) -> [String] {
    items.compactMap { $0["type"]?.stringValue }
  }

  @Test(
    "a session's life: started, each screen viewed and left, ended; in order, for its own session",
    arguments: TestBackend.allCases)
  func life(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    let other = try server.session()
    #expect(try session.call("push", ["route": "detail", "params": ["id": 7]]).status == 200)
    #expect(try session.call("present", ["route": "settings", "style": "sheet"]).status == 200)
    #expect(try session.call("dismiss").status == 200)
    #expect(try session.call("pop").status == 200)
    #expect(try session.client.json("DELETE", session.path, token: session.token).status == 204)
    let items = try Self.items(server, query: "session=\(session.id)")
    #expect(
      types(items) == [
        "session.started", "screen.viewed", "screen.left", "screen.viewed", "screen.left",
        "screen.viewed", "screen.left", "screen.viewed", "screen.left", "screen.viewed",
        "screen.left", "session.ended",
      ])
    try #require(items.count == 12)
    #expect(items.allSatisfy { $0["session"]?.stringValue == session.id })
    #expect(items[0]["graph"] == "demo")
    #expect(items[0]["graphVersion"] == 1)
    #expect(items[0]["root"] == "master")
    #expect(items[1]["screen"] == "master")
    #expect(items[1]["screenId"] == "c1")
    #expect(items[1]["transition"] == "start")
    #expect(items[1]["previous"] == .null)
    #expect(items[1]["presentation"] == "root")
    #expect(items[3]["screen"] == "detail")
    #expect(items[3]["params"] == ["id": 7])
    #expect(items[3]["transition"] == "push")
    #expect(items[3]["presentation"] == "push")
    #expect(items[3]["previous"] == ["screen": "master", "screenId": "c1"])
    #expect(items[3]["graphVersion"] == 1)
    #expect(items[2]["screen"] == "master")
    #expect(items[2]["durationMs"]?.intValue.map { $0 >= 0 } == true)
    #expect(items[5]["transition"] == "present")
    #expect(items[5]["presentation"] == "sheet")
    #expect(items[7]["transition"] == "dismiss")
    #expect(items[7]["screen"] == "detail")
    #expect(items[9]["transition"] == "pop")
    #expect(items[11]["reason"] == "deleted")
    // Each item is {id, type, session, at, ...}; ids are distinct cursors, `at` RFC 3339.
    #expect(Set(items.compactMap { $0["id"]?.stringValue }).count == items.count)
    #expect(items.allSatisfy { ($0["at"]?.stringValue ?? "").hasSuffix("Z") })
    #expect(items.allSatisfy { ($0["id"]?.stringValue ?? "").count <= 64 })
    // The other session's items are there too, and the unfiltered feed holds both in order.
    let all = try Self.items(server)
    #expect(all.count == items.count + 2)
    #expect(all.contains { $0["session"]?.stringValue == other.id })
  }

  @Test(
    "backend only: a session's token is 403 backend_only, none 401", arguments: TestBackend.allCases
  )
  func backendOnly(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    for path in ["/v1/feed", "/v1/feed/stream"] {
      let withToken = try server.client.json("GET", path, token: session.token)
      #expect(withToken.status == 403)
      #expect(withToken.code == "backend_only")
      #expect(try server.client.json("GET", path, token: nil).status == 401)
    }
    let funnel = try server.client.json(
      "POST", "/v1/analytics/funnel", token: session.token,
      body: ["graph": "demo", "steps": ["master", "detail"]])
    #expect(funnel.status == 403)
    #expect(funnel.code == "backend_only")
  }

  @Test(
    "pages: after, limit, next, types and session filters; bad queries are 400",
    arguments: TestBackend.allCases)
  func pages(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    for id in 1...3 {
      #expect(
        try session.call("push", ["route": "detail", "params": ["id": .int(id)]]).status == 200)
    }
    let all = try Self.items(server)
    #expect(all.count == 8)
    let first = try Self.feed(server, "?limit=3")
    #expect(first.json["events"]?.arrayValue?.count == 3)
    let next = try #require(first.json["next"]?.stringValue)
    #expect(next == all[2]["id"]?.stringValue)
    let second = try Self.feed(server, "?after=\(next)&limit=100")
    #expect(second.json["events"]?.arrayValue ?? [] == Array(all[3...]))
    // At the end, `next` is the cursor to wait from; nothing after it yet.
    let end = try #require(second.json["next"]?.stringValue)
    let empty = try Self.feed(server, "?after=\(end)")
    #expect(empty.json["events"] == [])
    #expect(empty.json["next"]?.stringValue == end)
    let viewed = try Self.items(server, query: "types=screen.viewed")
    #expect(viewed.count == 4)
    let started = try Self.items(server, query: "types=session.started,screen.left")
    #expect(types(started) == ["session.started", "screen.left", "screen.left", "screen.left"])
    // The default page is 100 items at most; 1000 at most may be asked for.
    #expect(try Self.feed(server, "?limit=0").status == 400)
    #expect(try Self.feed(server, "?limit=1001").status == 400)
    let unknownType = try Self.feed(server, "?types=screen.seen")
    #expect(unknownType.status == 400)
    #expect(unknownType.code == "invalid_query")
    #expect(try Self.feed(server, "?session=nonsense").status == 400)
    #expect(try Self.feed(server, "?format=xml").status == 400)
  }

  @Test(
    "cursors: one never issued is 400 invalid_cursor; one older than what is kept is 410 with oldest",
    arguments: TestBackend.allCases)
  func cursors(backend: TestBackend) throws {
    let server = try Self.app(backend, retention: 10)
    defer { server.stop() }
    let session = try server.session()
    let firstPage = try Self.feed(server, "?limit=1")
    let firstCursor = try #require(firstPage.json["next"]?.stringValue)
    for text in ["garbage", "00000000-1", firstCursor + "99999", String(repeating: "a", count: 65)]
    {
      let refused = try Self.feed(server, "?after=\(text)")
      #expect(refused.status == 400, "\(text)")
      #expect(refused.code == "invalid_cursor")
    }
    for id in 1...30 {
      #expect(
        try session.call("push", ["route": "detail", "params": ["id": .int(id)]]).status == 200)
      #expect(try session.call("pop").status == 200)
    }
    // Retention 10: at least 10 kept, at most 20.
    let kept = try Self.items(server)
    #expect(kept.count >= 10 && kept.count <= 20, "\(kept.count)")
    let expired = try Self.feed(server, "?after=\(firstCursor)")
    #expect(expired.status == 410)
    #expect(expired.code == "cursor_expired")
    let oldest = try #require(expired.json["oldest"]?.stringValue)
    let resumed = try Self.feed(server, "?after=\(oldest)&limit=1000")
    #expect(resumed.status == 200)
    #expect(resumed.json["events"]?.arrayValue ?? [] == kept)
  }

  @Test("?format=cloudevents: CloudEvents 1.0 objects", arguments: TestBackend.allCases)
  func cloudEvents(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    #expect(try session.call("push", ["route": "detail", "params": ["id": 3]]).status == 200)
    let plain = try Self.items(server)
    let page = try Self.feed(server, "?format=cloudevents")
    let events = page.json["events"]?.arrayValue ?? []
    #expect(events.count == plain.count)
    try #require(events.count == 4)
    for (event, item) in zip(events, plain) {
      #expect(event["specversion"] == "1.0")
      #expect(event["id"] == item["id"])
      #expect(event["source"]?.stringValue?.hasPrefix("navstate://") == true)
      #expect(event["type"]?.stringValue == "dev.navstate." + (item["type"]?.stringValue ?? ""))
      #expect(event["subject"]?.stringValue == session.id)
      #expect(event["time"] == item["at"])
      #expect(event["datacontenttype"] == "application/json")
    }
    #expect(events[3]["data"]?["screen"] == "detail")
    #expect(events[3]["data"]?["params"] == ["id": 3])
    #expect(events[3]["data"]?["id"] == nil)
  }

  @Test(
    "redirects, pending requests and context keys (names only), and the transitions they make",
    arguments: TestBackend.allCases)
  func guards(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session(
      ["graph": "zumry", "context": ["authenticated": true, "plan": "secret-plan"]],
      token: Self.key)
    let start = try #require(try Self.feed(server, "?limit=1000").json["next"]?.stringValue)
    #expect(
      try session.call("push", ["route": "checkout", "params": ["item": "book"]]).status == 200)
    let redirected = try Self.items(server, after: start)
    #expect(
      types(redirected) == ["navigation.redirected", "screen.left", "screen.viewed"],
      "\(redirected)")
    try #require(redirected.count == 3)
    #expect(redirected[0]["route"] == "checkout")
    #expect(redirected[0]["redirect"] == "verifyEmail")
    #expect(redirected[2]["screen"] == "verifyEmail")
    #expect(redirected[2]["transition"] == "redirect")
    let afterRedirect = try #require(redirected.last?["id"]?.stringValue)
    let patched = try server.client.json(
      "PATCH", "\(session.path)/context", token: Self.key, body: ["emailVerified": true],
      headers: [("Content-Type", "application/merge-patch+json")])
    #expect(patched.status == 200)
    let resumed = try Self.items(server, after: afterRedirect)
    #expect(
      types(resumed) == ["context.changed", "pending.applied", "screen.left", "screen.viewed"],
      "\(resumed)")
    try #require(resumed.count == 4)
    #expect(resumed[0]["keys"] == ["emailVerified"])
    #expect(resumed[1]["route"] == "checkout")
    #expect(resumed[3]["screen"] == "checkout")
    #expect(resumed[3]["transition"] == "resume")
    let afterResume = try #require(resumed.last?["id"]?.stringValue)
    // Signing out closes what the context opened: the shown screen goes as the server decides.
    let signedOut = try server.client.json(
      "PUT", "\(session.path)/context", token: Self.key, body: ["plan": "secret-plan"])
    #expect(signedOut.status == 200)
    let lost = try Self.items(server, after: afterResume)
    #expect(lost.first?["type"] == "context.changed")
    #expect(lost.first?["keys"] == ["authenticated", "emailVerified"])
    let viewed = lost.filter { $0["type"] == "screen.viewed" }
    #expect(viewed.count == 1)
    #expect(
      ["requirementLost", "redirect"].contains(viewed.first?["transition"]?.stringValue ?? ""),
      "\(lost)")
    // No value of the context is ever in the feed.
    let everything = try Self.feed(server, "?limit=1000").text
    #expect(!everything.contains("secret-plan"))
  }

  @Test(
    "a batch is named by its element that last changed the screen", arguments: TestBackend.allCases)
  func batch(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try server.session()
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    let start = try #require(try Self.feed(server, "?limit=1000").json["next"]?.stringValue)
    let batch = try session.call(
      "batch",
      ["ops": [["op": "pop"], ["op": "present", "route": "settings", "style": "sheet"]]])
    #expect(batch.status == 200, "\(batch.text)")
    // A batch that leaves the same screen active makes no screen item at all.
    #expect(
      try session.call(
        "batch",
        ["ops": [["op": "push", "route": "detail", "params": ["id": 2]], ["op": "pop"]]]
      ).status == 200)
    let items = try Self.items(server, after: start)
    #expect(types(items) == ["screen.left", "screen.viewed"])
    try #require(items.count == 2)
    #expect(items[1]["transition"] == "present")
    #expect(items[1]["previous"]?["screen"] == "detail")
  }

  @Test(
    "a refused change makes no item; restores and sensitive params are written as 10.1 says",
    arguments: TestBackend.allCases)
  func refusedRestoredRedacted(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let graph: JSONValue = [
      "name": "bank", "version": 1, "root": "home",
      "routes": [
        ["name": "home", "path": "/home", "next": ["card"]],
        [
          "name": "card", "path": "/card",
          "params": [
            "number": ["type": "string", "sensitive": true], "label": ["type": "string"],
          ],
        ],
      ],
    ]
    #expect(
      try server.client.json("PUT", "/v1/graphs/bank", token: Self.key, body: graph).status == 201)
    let session = try server.session(["graph": "bank"])
    let start = try #require(try Self.feed(server, "?limit=1000").json["next"]?.stringValue)
    #expect(try session.call("push", ["route": "nowhere"]).status == 422)
    #expect(
      try session.call("push", ["route": "card"], headers: [("If-Match", "\"9\"")]).status == 412)
    #expect(try Self.items(server, after: start).isEmpty)
    let pushed = try session.call(
      "push", ["route": "card", "params": ["number": "4111111111111111", "label": "work"]])
    #expect(pushed.status == 200)
    let restored = try session.call("restore", ["version": 1])
    #expect(restored.status == 200, "\(restored.text)")
    let items = try Self.items(server, after: start)
    #expect(
      types(items) == [
        "screen.left", "screen.viewed", "session.restored", "screen.left", "screen.viewed",
      ])
    try #require(items.count == 5)
    #expect(items[1]["params"] == ["label": "work", "number": "[redacted]"])
    #expect(items[2]["from"] == 1)
    #expect(items[4]["transition"] == "restore")
    #expect(!(try Self.feed(server, "?limit=1000").text.contains("4111111111111111")))
  }

  @Test(
    "a migration: session.migrated, and its screen's transition", arguments: TestBackend.allCases)
  func migration(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    func graph(_ version: Int) -> JSONValue {
      var routes: [JSONValue] = [
        ["name": "home", "path": "/home", "next": version == 1 ? ["extra"] : []]
      ]
      if version == 1 { routes.append(["name": "extra", "path": "/extra"]) }
      guard version == 2 else {
        return ["name": "flow", "version": 1, "root": "home", "routes": .array(routes)]
      }
      return [
        "name": "flow", "version": 2, "root": "home", "routes": .array(routes),
        "migrate": ["removed": ["extra": .null]],
      ]
    }
    #expect(
      try server.client.json("PUT", "/v1/graphs/flow", token: Self.key, body: graph(1)).status
        == 201)
    let session = try server.session(["graph": "flow"])
    #expect(try session.call("push", ["route": "extra"]).status == 200)
    let start = try #require(try Self.feed(server, "?limit=1000").json["next"]?.stringValue)
    let second = try server.client.json("PUT", "/v1/graphs/flow", token: Self.key, body: graph(2))
    #expect(second.status == 201, "\(second.text)")
    #expect(try session.get().status == 200)
    let items = try Self.items(server, after: start)
    #expect(types(items) == ["session.migrated", "screen.left", "screen.viewed"], "\(items)")
    try #require(items.count == 3)
    #expect(items[0]["from"] == 1)
    #expect(items[0]["to"] == 2)
    #expect(items[2]["transition"] == "migrate")
    #expect(items[2]["graphVersion"] == 2)
  }

  @Test("funnels: steps in order within the time, medians, and where sessions went instead")
  func funnel() throws {
    let server = try Self.app(.router)
    defer { server.stop() }
    // Three sessions reach detail; one of them then settings; one goes to settings straight.
    for index in 0..<3 {
      let session = try server.session()
      #expect(
        try session.call("push", ["route": "detail", "params": ["id": .int(index)]]).status == 200)
      if index == 0 {
        #expect(try session.call("present", ["route": "settings", "style": "sheet"]).status == 200)
      }
      if index == 1 { #expect(try session.call("pop").status == 200) }
    }
    let straight = try server.session()
    #expect(try straight.call("present", ["route": "settings", "style": "sheet"]).status == 200)
    let answer = try server.client.json(
      "POST", "/v1/analytics/funnel", token: Self.key,
      body: ["graph": "demo", "steps": ["master", "detail", "settings"]])
    #expect(answer.status == 200, "\(answer.text)")
    let steps = answer.json["steps"]?.arrayValue ?? []
    #expect(steps.map { $0["route"]?.stringValue } == ["master", "detail", "settings"])
    try #require(steps.count == 3)
    #expect(steps.map { $0["sessions"]?.intValue } == [4, 3, 1])
    #expect(steps[0]["medianSecondsFromPrevious"] == .null)
    #expect(steps[1]["medianSecondsFromPrevious"]?.doubleValue.map { $0 >= 0 } == true)
    let exits = answer.json["exits"]?.arrayValue ?? []
    #expect(
      exits.contains { $0["after"] == "master" && $0["to"] == "settings" && $0["sessions"] == 1 },
      "\(exits)")
    #expect(
      exits.contains { $0["after"] == "detail" && $0["to"] == "master" && $0["sessions"] == 1 })
    #expect(
      exits.contains { $0["after"] == "detail" && $0["to"] == .null && $0["sessions"] == 1 })
    // None before `since` (the time window is checked in FunnelTests, on times of its own).
    let future = try server.client.json(
      "POST", "/v1/analytics/funnel", token: Self.key,
      body: ["graph": "demo", "steps": ["master", "detail"], "since": "2999-01-01T00:00:00Z"])
    #expect(future.json["steps"]?[0]?["sessions"] == 0)
    for body: JSONValue in [
      ["graph": "demo", "steps": ["master"]],
      ["graph": "demo", "steps": .array(Array(repeating: "master", count: 11))],
      ["graph": "demo", "steps": ["master", 3]],
      ["steps": ["master", "detail"]],
      ["graph": "demo", "steps": ["master", "detail"], "withinSeconds": 0],
      ["graph": "demo", "steps": ["master", "detail"], "since": "yesterday"],
      ["graph": "demo", "steps": ["master", "detail"], "colour": "red"],
    ] {
      let refused = try server.client.json(
        "POST", "/v1/analytics/funnel", token: Self.key, body: body)
      #expect(refused.status == 400, "\(body)")
      #expect(refused.code == "invalid_request")
    }
  }

  @Test(
    "each operation names its transition: tab, replace, deeplink, state, teardown, back",
    arguments: TestBackend.allCases)
  func transitions(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let tabs = try server.session(["graph": "demo", "root": ["route": "tabs"]])
    let start = try #require(try Self.feed(server, "?limit=1000").json["next"]?.stringValue)
    #expect(try tabs.call("select-tab", ["tab": "search"]).status == 200)
    #expect(try tabs.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    #expect(try tabs.call("replace", ["route": "detail", "params": ["id": 2]]).status == 200)
    #expect(try tabs.call("back").status == 200)
    let other = try server.session()
    #expect(try other.call("deeplink", ["url": "myapp://master/detail/7"]).status == 200)
    let state = try other.client.json(
      "PUT", "\(other.path)/state", token: other.token,
      body: ["path": [["route": "master"], ["route": "settings", "presentation": "sheet"]]])
    #expect(state.status == 200, "\(state.text)")
    let sheet = try #require(state.json["session"]?["path"]?[1]?["id"]?.stringValue)
    let torn = try other.client.json(
      "DELETE", "\(other.path)/coordinators/\(sheet)", token: other.token)
    #expect(torn.status == 200, "\(torn.text)")
    let views = try Self.items(server, after: start, query: "types=screen.viewed")
    let named = views.map {
      "\($0["screen"]?.stringValue ?? "")/\($0["transition"]?.stringValue ?? "")"
    }
    #expect(
      named == [
        "search/tab", "detail/push", "detail/replace", "search/pop", "master/start",
        "detail/deeplink", "settings/state", "master/teardown",
      ], "\(named)")
  }

  @Test("an expired session's last items: screen.left, then session.ended {reason: expired}")
  func expiry() throws {
    let server = try TestApp(.router) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((Self.key + "\n").utf8))
      $0.store.sessionTTLSeconds = 0.3
    }
    defer { server.stop() }
    let session = try server.session()
    var items: [JSONValue] = []
    for _ in 0..<50 where items.last?["type"] != "session.ended" {
      usleep(100_000)
      items = try Self.items(server, query: "session=\(session.id)")
    }
    #expect(types(items).suffix(2) == ["screen.left", "session.ended"])
    #expect(items.last?["reason"] == "expired")
  }

  @Test("--feed-retention 0 turns the feed off: it stays empty")
  func off() throws {
    let server = try Self.app(.router, retention: 0)
    defer { server.stop() }
    let session = try server.session()
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    let page = try Self.feed(server)
    #expect(page.status == 200)
    #expect(page.json["events"] == [])
  }
}

import NavJSON
import NavigationCore
import Testing

@testable import NavStateWire

/// A graph whose `account` route has two sensitive params (`card`, `pin`) and one that is not
/// (`tier`), as a graph document declares them.
private let shopGraph: RouteGraph = {
  let json = """
    {"name": "shop", "root": "home", "routes": [
      {"name": "home", "root": true, "path": "/home"},
      {"name": "account", "path": "/account", "params": {
        "card": {"type": "string", "sensitive": true},
        "pin": {"type": "int", "sensitive": true},
        "tier": {"type": "string"}}}
    ]}
    """
  do {
    return try RouteGraph.decode(Array(json.utf8), source: "shop.json")
  } catch {
    preconditionFailure("the shop graph must load: \(error)")
  }
}()

private let demoGraph: RouteGraph = {
  do {
    return try BuiltInGraphs.load()[0]
  } catch {
    preconditionFailure("the built-in graphs load: \(error)")
  }
}()

private func parse(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// Every `context` member at any depth, except inside `params` and `result`, by path.
private func contextMembers(_ value: JSONValue, at path: String = "") -> [String] {
  switch value {
  case .array(let elements):
    return elements.enumerated().flatMap { contextMembers($1, at: "\(path)[\($0)]") }
  case .object(let object):
    return object.members.flatMap { member -> [String] in
      if member.key == "context" { return ["\(path).context"] }
      if member.key == "params" || member.key == "result" { return [] }
      return contextMembers(member.value, at: "\(path).\(member.key)")
    }
  default:
    return []
  }
}

/// What a follow share reads: no context, sensitive params redacted, the rest as it was.
@Suite struct FollowViewTests {
  @Test("no context member but in params and results, sensitive params redacted, nothing allowed")
  func filter() throws {
    let owner = try parse(
      """
      {"id": "s1", "context": {"plan": "pro"},
       "path": [
         {"id": "c1", "route": "home", "params": {}},
         {"id": "c2", "route": "account",
          "params": {"card": "4242", "pin": 1234, "tier": "gold", "context": "the client's"}}],
       "pending": {"op": "push", "route": "account", "coordinator": "c3"},
       "events": [
         {"type": "context.changed", "context": {"plan": "pro"}},
         {"type": "coordinator.resumed", "result": {"context": {"kept": true}}}],
       "nested": {"deeper": [{"context": 1, "keep": 2}, {"context": null}]},
       "text": "context", "list": ["context"],
       "allowed": {"push": ["account"], "pop": true, "back": false, "leaveGuard": null},
       "params": {"allowed": {"push": ["x"]}}}
      """)
    let expected = try parse(
      """
      {"id": "s1",
       "path": [
         {"id": "c1", "route": "home", "params": {}},
         {"id": "c2", "route": "account",
          "params": {"card": "[redacted]", "pin": "[redacted]", "tier": "gold",
                     "context": "the client's"}}],
       "pending": {"op": "push", "route": "account", "coordinator": "c3"},
       "events": [
         {"type": "context.changed"},
         {"type": "coordinator.resumed", "result": {"context": {"kept": true}}}],
       "nested": {"deeper": [{"keep": 2}, {}]},
       "text": "context", "list": ["context"],
       "allowed": {"push": [], "pop": false, "back": false, "leaveGuard": null},
       "params": {"allowed": {"push": ["x"]}}}
      """)
    let followed = FollowView.filter(owner, in: shopGraph)
    #expect(followed == expected)
    #expect(contextMembers(owner).count == 4)
    #expect(contextMembers(followed) == [])
    // The same over bytes.
    var writer = JSONWriter(capacity: 1024)
    writer.value(owner)
    var expectedWriter = JSONWriter(capacity: 1024)
    expectedWriter.value(expected)
    #expect(
      text(FollowView.filter(json: writer.bytes, in: shopGraph)) == text(expectedWriter.bytes))
  }

  @Test("a graph without sensitive params keeps every param of its routes; the context still goes")
  func noSensitiveParams() throws {
    let owner = try parse(
      #"{"route": "account", "params": {"card": "4242"}, "context": {"a": 1}, "x": {"context": 2}}"#
    )
    #expect(!demoGraph.hasSensitiveParams)
    #expect(shopGraph.hasSensitiveParams)
    let known = try parse(#"{"route": "detail", "params": {"id": 4242}, "context": {"a": 1}}"#)
    #expect(
      FollowView.filter(known, in: demoGraph)
        == (try parse(#"{"route": "detail", "params": {"id": 4242}}"#)))
    // A route the graph does not have (from before a migration renamed it): its declarations
    // are unknown here, so every param is redacted.
    #expect(
      FollowView.filter(owner, in: demoGraph)
        == (try parse(#"{"route": "account", "params": {"card": "[redacted]"}, "x": {}}"#)))
    // The same object on the shop graph: its card is redacted.
    #expect(
      FollowView.filter(owner, in: shopGraph)
        == (try parse(#"{"route": "account", "params": {"card": "[redacted]"}, "x": {}}"#)))
  }

  @Test("a tree 300 coordinators deep is filtered, not dropped (past the parser's usual depth)")
  func deepTree() throws {
    var json = #"{"route": "account", "params": {"card": "4242"}, "children": []}"#
    for _ in 0..<300 {
      json = #"{"route": "home", "params": {}, "children": ["# + json + "]}"
    }
    json = #"{"context": {"a": 1}, "root": "# + json + "}"
    let filtered = String(
      decoding: FollowView.filter(json: Array(json.utf8), in: shopGraph), as: UTF8.self)
    #expect(filtered != "null")
    #expect(!filtered.contains("4242"))
    #expect(filtered.contains("[redacted]"))
    #expect(!filtered.contains("context"))
  }

  @Test("JSON with no context and nothing sensitive is left as it was, byte for byte")
  func otherJSON() throws {
    let started = StateJSON.encodeEvent(
      NavigationEvent(
        seq: 2, version: 2,
        kind: .started(
          CoordinatorID(2), route: "account", params: ["tier": .string("gold")],
          presentation: .push, parent: CoordinatorID(1))))
    #expect(FollowView.filter(json: started, in: shopGraph) == started)
    for value: JSONValue in [
      .null, .bool(true), .int(-3), .string("context"), .array([.string("context"), .int(1)]),
      try parse(#"{"a": [1, {"b": "c"}], "route": "home", "params": {"x": 1}}"#),
      try parse(#"{"redirects": {"x": "y"}, "route": 3}"#),
    ] {
      #expect(FollowView.filter(value, in: shopGraph) == value)
    }
    // What is not JSON is not passed on.
    #expect(text(FollowView.filter(json: Array("{\"context\":".utf8), in: shopGraph)) == "null")
  }

  @Test("a state and its events as a follow share reads them")
  func realState() throws {
    var (state, _) = try NavigationState.start(
      graph: shopGraph, context: ["plan": .string("pro"), "signedIn": .bool(true)])
    let events = try state.apply(
      .push(
        RouteRequest(
          route: "account",
          params: ["card": .string("4242 4242"), "pin": .int(1234), "tier": .string("gold")])))
    var writer = JSONWriter(capacity: 2048)
    StateJSON.writeState(
      state, id: "s1",
      times: SessionTimes(
        createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 1_000),
        expiresAt: Timestamp(milliseconds: 2_000)), into: &writer)
    let owner = try JSONParser.parse(writer.bytes)
    #expect(owner["context"] == ["plan": "pro", "signedIn": true])
    #expect(owner["path"]?[1]?["params"]?["card"] == "4242 4242")
    let followed = try JSONParser.parse(FollowView.filter(json: writer.bytes, in: shopGraph))
    #expect(followed["context"] == nil)
    #expect(contextMembers(followed) == [])
    #expect(
      followed["path"]?[1]?["params"] == [
        "card": "[redacted]", "pin": "[redacted]", "tier": "gold",
      ]
    )
    // Everything else is the owner's.
    let ownerKeys = owner.objectValue?.keys.filter { $0 != "context" }
    #expect(followed.objectValue?.keys == ownerKeys)
    for key in ownerKeys ?? [] where !["path", "root", "allowed"].contains(key) {
      #expect(followed[key] == owner[key], "\(key)")
    }
    // Nothing is allowed to a share that may not move the session: the same members, every
    // list empty and every flag false.
    let allowed = try #require(owner["allowed"]?.objectValue)
    #expect(allowed["pop"] == true)
    #expect(allowed["push"]?.arrayValue?.isEmpty == false)
    let followedAllowed = try #require(followed["allowed"]?.objectValue)
    #expect(followedAllowed.keys == allowed.keys)
    for member in followedAllowed.members {
      switch allowed[member.key] {
      case .array: #expect(member.value == [], "\(member.key)")
      case .bool: #expect(member.value == false, "\(member.key)")
      default: #expect(member.value == allowed[member.key], "\(member.key)")
      }
    }
    // The tree under `root` holds the params too.
    #expect(followed["root"]?["children"]?[0]?["params"]?["card"] == "[redacted]")
    #expect(followed["root"]?["children"]?[0]?["params"]?["tier"] == "gold")
    #expect(followed["path"]?[0] == owner["path"]?[0])
    #expect(followed["path"]?[1]?["id"] == owner["path"]?[1]?["id"])
    // The start event of account, redacted.
    let started = try #require(
      events.first { if case .started = $0.kind { true } else { false } })
    let event = try JSONParser.parse(
      FollowView.filter(json: StateJSON.encodeEvent(started), in: shopGraph))
    #expect(event["params"]?["card"] == "[redacted]")
    #expect(event["params"]?["pin"] == "[redacted]")
    #expect(event["params"]?["tier"] == "gold")
    // A context change as an event: no context.
    let changed = NavigationEvent(
      seq: 9, version: 9, kind: .contextChanged(["plan": .string("team")]))
    #expect(
      text(FollowView.filter(json: StateJSON.encodeEvent(changed), in: shopGraph))
        == #"{"seq":9,"version":9,"type":"context.changed"}"#)
  }
}

/// What a follow share reads of a deep link: the URL carries the params it set.
@Suite struct FollowViewDeepLinkTests {
  @Test("a deep link's URL in a history op shows no sensitive param's value to a follow share")
  func deepLinkOp() throws {
    let url = "/home/account?card=4242-9999&tier=gold"
    var (state, _) = try NavigationState.start(graph: shopGraph)
    _ = try state.apply(.deepLink(url))
    // The link did set the sensitive param: the state shows it redacted.
    var stateWriter = JSONWriter(capacity: 2048)
    StateJSON.writeState(
      state, id: "s1",
      times: SessionTimes(
        createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0),
        expiresAt: Timestamp(milliseconds: 0)), into: &stateWriter)
    let followedState = try JSONParser.parse(
      FollowView.filter(json: stateWriter.bytes, in: shopGraph))
    #expect(followedState["path"]?[1]?["params"]?["card"] == "[redacted]")
    #expect(text(stateWriter.bytes).contains("4242"), "the owner sees the card")
    #expect(!text(FollowView.filter(json: stateWriter.bytes, in: shopGraph)).contains("4242"))
    // The history entry's op, as `GET .../history` writes it and a follow share reads it.
    var writer = JSONWriter(capacity: 256)
    CommandJSON.writeOp(.deepLink(url), into: &writer)
    let followed = text(FollowView.filter(json: writer.bytes, in: shopGraph))
    #expect(!followed.contains("4242"), "\(followed)")
    #expect(try JSONParser.parse(Array(followed.utf8))["op"] == "deeplink")
    // A graph with nothing sensitive leaves a link as it was.
    var demoOp = JSONWriter(capacity: 256)
    CommandJSON.writeOp(.deepLink("/master/detail/3"), into: &demoOp)
    #expect(FollowView.filter(json: demoOp.bytes, in: demoGraph) == demoOp.bytes)
    #expect(text(demoOp.bytes).contains("/master/detail/3"))
  }

  @Test("a deep link held by a redirect shows no sensitive param's value in the state's pending")
  func pendingURL() throws {
    let graph = try RouteGraph.decode(
      Array(
        """
        {"name": "vault", "root": "home", "routes": [
          {"name": "home", "root": true, "path": "/home"},
          {"name": "signin", "path": "/signin"},
          {"name": "account", "path": "/account", "requires": {"signedIn": true},
           "redirect": "signin", "params": {"card": {"type": "string", "sensitive": true}}}
        ]}
        """.utf8), source: "vault.json")
    var (state, _) = try NavigationState.start(graph: graph)
    _ = try state.apply(.deepLink("/home/account?card=4242-9999"))
    #expect(state.pendingRequest?.route == "account")
    var writer = JSONWriter(capacity: 2048)
    StateJSON.writeState(
      state, id: "s1",
      times: SessionTimes(
        createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0),
        expiresAt: Timestamp(milliseconds: 0)), into: &writer)
    #expect(text(writer.bytes).contains("4242"), "the owner's pending request has the URL")
    let followed = text(FollowView.filter(json: writer.bytes, in: graph))
    #expect(!followed.contains("4242"), "\(followed)")
  }
}

/// How a state shows its shares, and how a share's creation answer shows it.
@Suite struct ShareJSONTests {
  private static func share(
    _ id: String, _ mode: ShareMode, label: String, expiresAt: Int64
  ) -> SessionShare {
    SessionShare(
      id: id, mode: mode, label: label, createdAt: 0, expiresAt: expiresAt,
      credential: Array(repeating: 0xAB, count: 32))
  }

  private static let shares = [
    share("a", .follow, label: "Support: Ana", expiresAt: 61_500),
    share("b", .drive, label: "Old", expiresAt: 1_000),
    share("c", .drive, label: "iPad \"2\"", expiresAt: 3_600_000),
  ]

  private static func written(_ view: SharesView) -> String {
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    ShareJSON.writeSharesMember(view, into: &writer)
    writer.endObject()
    return text(writer.bytes)
  }

  @Test("the owner sees every live share with how many streams watch it; not expired ones")
  func owner() {
    let view = SharesView(shares: Self.shares, now: 1_000, watching: ["a": 2, "b": 5])
    #expect(
      Self.written(view)
        == #"{"shares":[{"id":"a","mode":"follow","label":"Support: Ana","#
        + #""expiresAt":"1970-01-01T00:01:01.500Z","watching":2},"#
        + #"{"id":"c","mode":"drive","label":"iPad \"2\"","#
        + #""expiresAt":"1970-01-01T01:00:00.000Z","watching":0}]}"#)
    // A millisecond earlier, b is live still.
    let earlier = SharesView(shares: Self.shares, now: 999, watching: ["b": 5])
    #expect(Self.written(earlier).contains(#"{"id":"b","mode":"drive","label":"Old","#))
    #expect(Self.written(earlier).contains(#""watching":5"#))
    #expect(Self.written(SharesView()) == #"{"shares":[]}"#)
    #expect(!Self.written(view).contains("credential"))
    #expect(!Self.written(view).contains("createdAt"))
  }

  @Test("a share's token sees only its own entry, and none once it expired")
  func only() {
    let watching = ["a": 1, "c": 3]
    #expect(
      Self.written(SharesView(shares: Self.shares, only: "c", now: 1_000, watching: watching))
        == #"{"shares":[{"id":"c","mode":"drive","label":"iPad \"2\"","#
        + #""expiresAt":"1970-01-01T01:00:00.000Z","watching":3}]}"#)
    #expect(
      Self.written(SharesView(shares: Self.shares, only: "b", now: 1_000))
        == #"{"shares":[]}"#)
    #expect(
      Self.written(SharesView(shares: Self.shares, only: "zz", now: 0)) == #"{"shares":[]}"#)
    #expect(
      Self.written(SharesView(shares: Self.shares, only: "a", now: 61_500)) == #"{"shares":[]}"#)
  }

  @Test("a share as its creation answers it: id, mode, label, createdAt, expiresAt")
  func share() {
    var writer = JSONWriter(capacity: 256)
    ShareJSON.writeShare(
      SessionShare(
        id: "b7Fq2xKc", mode: .follow, label: "Support: \"Ana\"", createdAt: 1_000,
        expiresAt: 901_000, credential: Array(repeating: 1, count: 32)), into: &writer)
    #expect(
      text(writer.bytes)
        == #"{"id":"b7Fq2xKc","mode":"follow","label":"Support: \"Ana\"","#
        + #""createdAt":"1970-01-01T00:00:01.000Z","expiresAt":"1970-01-01T00:15:01.000Z"}"#)
  }

  @Test("a state lists its shares after expiresAt, and a fork says where it came from")
  func state() throws {
    var (state, _) = try NavigationState.fork(
      graph: demoGraph, path: [PathEntry(route: "master", presentation: .root)],
      context: SessionContext(), origin: ForkOrigin(session: "src-1", version: 7))
    _ = try state.apply(
      .createShare(
        Self.share("s", .follow, label: "L", expiresAt: 4_102_444_800_000)))  // 2100
    let times = SessionTimes(
      createdAt: Timestamp(milliseconds: 0), updatedAt: Timestamp(milliseconds: 0),
      expiresAt: Timestamp(milliseconds: 0))
    var writer = JSONWriter(capacity: 1024)
    StateJSON.writeState(state, id: "s2", times: times, into: &writer)
    let json = try JSONParser.parse(writer.bytes)
    #expect(
      json.objectValue?.keys == [
        "id", "graph", "graphVersion", "version", "createdAt", "updatedAt", "expiresAt", "shares",
        "active", "root", "path", "context", "forkedFrom", "allowed",
      ])
    #expect(json["forkedFrom"] == ["session": "src-1", "version": 7])
    #expect(
      json["shares"]
        == [
          [
            "id": "s", "mode": "follow", "label": "L", "expiresAt": "2100-01-01T00:00:00.000Z",
            "watching": 0,
          ]
        ])
    // A view given instead: what a share's token sees.
    var shareView = JSONWriter(capacity: 1024)
    StateJSON.writeState(
      state, id: "s2", times: times, shares: SharesView(shares: state.shares, only: "x"),
      into: &shareView)
    #expect(try JSONParser.parse(shareView.bytes)["shares"] == [])
  }
}

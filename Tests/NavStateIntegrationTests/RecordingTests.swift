import Foundation
import NavJSON
import NavStateApp
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import Testing

/// Breadcrumbs, sensitive params, recordings and their replay against a graph version.
@Suite("Recordings and replay")
struct RecordingTests {
  private static let backendKey = "recording-test-backend-key-0123456789"

  private static func app(_ backend: TestBackend) throws -> TestApp {
    try TestApp(backend) {
      $0.store.backendKeys = try BackendKeys(fileContents: Array((backendKey + "\n").utf8))
    }
  }

  /// A graph `shop` at `version`: `home` leads to `account` (its `card` sensitive, a string,
  /// and its `pin` sensitive, an int) and `order`; version 2 and later have no `order`.
  private static func shop(version: Int) -> JSONValue {
    var routes: [JSONValue] = [
      [
        "name": "home", "path": "/home",
        "next": version == 1 ? ["account", "order"] : ["account"],
      ],
      [
        "name": "account", "path": "/account",
        "params": [
          "card": ["type": "string", "sensitive": true],
          "pin": ["type": "int", "sensitive": true], "tier": ["type": "string"],
        ],
      ],
    ]
    if version == 1 { routes.append(["name": "order", "path": "/order"]) }
    return ["name": "shop", "version": .int(version), "root": "home", "routes": .array(routes)]
  }

  private func load(_ server: TestApp, version: Int) throws {
    let loaded = try server.client.json(
      "PUT", "/v1/graphs/shop", token: Self.backendKey, body: Self.shop(version: version))
    #expect(loaded.status == 201, "\(loaded.json)")
  }

  private func lines(_ response: TestResponse) -> [JSONValue] {
    response.body.split(separator: UInt8(ascii: "\n")).compactMap {
      try? JSONParser.parse(Array($0))
    }
  }

  @Test(
    "breadcrumbs: one per version whose active route changed, oldest first",
    arguments: TestBackend.allCases)
  func breadcrumbs(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    _ = try session.call("push", ["route": "detail", "params": ["id": 2]])
    _ = try session.call("present", ["route": "settings"])
    _ = try session.call("dismiss")
    let answer = try session.client.json(
      "GET", "\(session.path)/history?format=breadcrumbs", token: session.token)
    #expect(answer.status == 200)
    let crumbs = answer.json.arrayValue ?? []
    #expect(
      crumbs.map { [$0["data"]?["from"]?.stringValue, $0["data"]?["to"]?.stringValue] } == [
        ["", "/master"], ["/master", "/master/detail"],
        ["/master/detail/detail", "/master/detail/detail/settings"],
        ["/master/detail/detail/settings", "/master/detail/detail"],
      ])
    for crumb in crumbs {
      #expect(crumb["type"] == "navigation")
      #expect(crumb["category"] == "navigation")
      #expect(crumb["timestamp"]?.doubleValue ?? 0 > 1_700_000_000)
    }
    for query in ["format=xml", "format=breadcrumbs&limit=0", "format=breadcrumbs&after=-1"] {
      #expect(
        try session.client.json(
          "GET", "\(session.path)/history?\(query)", token: session.token
        ).status == 400, "\(query)")
    }
  }

  @Test(
    "a recording redacts sensitive params unless the backend asks", arguments: TestBackend.allCases)
  func recording(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    try load(server, version: 1)
    let graph = try server.client.json("GET", "/v1/graphs/shop")
    let card = graph.json["routes"]?.arrayValue?.first { $0["name"] == "account" }?["params"]?[
      "card"]
    #expect(card?["sensitive"] == true)
    let session = try TestSession(server.client, body: ["graph": "shop"])
    _ = try session.call(
      "push", ["route": "account", "params": ["card": "4111", "pin": 1234, "tier": "gold"]])
    let recording = try server.client.request(
      "GET", "\(session.path)/recording", token: session.token)
    #expect(recording.status == 200)
    #expect(recording.header("Content-Type") == "application/x-ndjson")
    let shown = lines(recording)
    #expect(shown.count == 2)
    #expect(shown[0]["type"] == "recording")
    #expect(shown[0]["graph"] == "shop")
    #expect(shown[0]["from"] == 1)
    #expect(shown[0]["to"] == 2)
    #expect(shown[0]["state"]?["version"] == 1)
    #expect(shown[1]["type"] == "entry")
    #expect(
      shown[1]["op"]?["params"] == ["card": "[redacted]", "pin": "[redacted]", "tier": "gold"])
    let plain = try server.client.request(
      "GET", "\(session.path)/recording?redact=false", token: Self.backendKey)
    #expect(lines(plain)[1]["op"]?["params"] == ["card": "4111", "pin": 1234, "tier": "gold"])
    let refused = try server.client.request(
      "GET", "\(session.path)/recording?redact=false", token: session.token)
    #expect(refused.status == 403)
  }

  @Test(
    "a replay reports where each recording first diverges from a graph version",
    arguments: TestBackend.allCases)
  func replay(backend: TestBackend) throws {
    let server = try Self.app(backend)
    defer { server.stop() }
    try load(server, version: 1)
    var body: [UInt8] = []
    var ids: [String] = []
    for ordersFirst in [false, true] {
      let session = try TestSession(server.client, body: ["graph": "shop"])
      ids.append(session.id)
      if ordersFirst { _ = try session.call("push", ["route": "order"]) }
      _ = try session.call("push", ["route": "account", "params": ["card": "1", "tier": "x"]])
      body += try server.client.request("GET", "\(session.path)/recording", token: session.token)
        .body
    }
    try load(server, version: 2)
    func replay(_ query: String, _ body: [UInt8], type: String = "application/x-ndjson")
      throws -> TestResponse
    {
      try server.client.request(
        "POST", "/v1/graphs/shop/replay\(query)", token: Self.backendKey,
        headers: [("Content-Type", type)], body: body)
    }
    let before = try [
      "navstate_live_sessions", "navstate_live_coordinators", "navstate_memory_accounted_bytes",
    ].map { try server.metric($0) }
    let onOne = try replay("?version=1", body)
    #expect(onOne.status == 200)
    #expect(onOne.json["recordings"] == 2)
    #expect(onOne.json["replayed"] == 2)
    #expect(onOne.json["diverged"] == [])
    let onNewest = try replay("", body)
    #expect(onNewest.json["version"] == 2)
    #expect(onNewest.json["replayed"] == 1)
    let diverged = onNewest.json["diverged"]?.arrayValue ?? []
    #expect(diverged.count == 1)
    #expect(diverged.first?["recording"] == 1)
    #expect(diverged.first?["session"]?.stringValue == ids[1])
    #expect(diverged.first?["version"] == 2)
    #expect(diverged.first?["op"]?["route"] == "order")
    #expect(diverged.first?["status"] == 422)
    #expect(diverged.first?["code"] == "unknown_route")
    // Nothing of a replay is kept: no session, coordinator or byte more than before.
    let after = try [
      "navstate_live_sessions", "navstate_live_coordinators", "navstate_memory_accounted_bytes",
    ].map { try server.metric($0) }
    #expect(after == before)
    // Recordings come many to a request: bodies past --max-body-bytes (64 KiB) are taken here.
    let many = Array(repeating: body, count: 200).flatMap { $0 }
    #expect(many.count > 64 * 1024)
    let large = try replay("", many)
    #expect(large.status == 200)
    #expect(large.json["recordings"] == 400)
    #expect(large.json["diverged"]?.arrayValue?.count == 200)
    #expect(
      try replay("", Array("{\"type\":\"entry\"}\n".utf8)).json["code"] == "invalid_recording")
    #expect(try replay("", body, type: "application/json").status == 415)
    #expect(try replay("?version=9", body).status == 404)
    let byClient = try server.client.request(
      "POST", "/v1/graphs/shop/replay", token: nil,
      headers: [("Content-Type", "application/x-ndjson")], body: body)
    #expect(byClient.status == 401)
  }

  @Test("a candidate graph on the body's first line is replayed against and loaded nowhere")
  func candidateGraph() throws {
    let server = try Self.app(.router)
    defer { server.stop() }
    try load(server, version: 1)
    let session = try TestSession(server.client, body: ["graph": "shop"])
    _ = try session.call("push", ["route": "order"])
    let recording = try server.client.request(
      "GET", "\(session.path)/recording", token: session.token
    ).body
    let candidate: JSONValue = ["type": "graph", "graph": Self.shop(version: 2)]
    func replay(_ body: [UInt8], graph name: String = "shop") throws -> TestResponse {
      try server.client.request(
        "POST", "/v1/graphs/\(name)/replay", token: Self.backendKey,
        headers: [("Content-Type", "application/x-ndjson")], body: body)
    }
    let answer = try replay(candidate.encoded + [UInt8(ascii: "\n")] + recording)
    #expect(answer.status == 200)
    #expect(answer.json["version"] == 2)
    #expect(answer.json["diverged"]?.arrayValue?.first?["code"] == "unknown_route")
    // Not loaded: the newest version is still 1, and the session goes on on it.
    #expect(try server.client.json("GET", "/v1/graphs/shop").json["version"] == 1)
    #expect(try replay(recording).json["diverged"] == [])
    // Its name must be the path's; a graph line after a recording is refused.
    #expect(try replay(candidate.encoded, graph: "demo").status == 422)
    #expect(
      try replay(recording + candidate.encoded).json["code"] == "invalid_recording")
  }

  @Test("a redacted value replays where the param takes a string, and diverges where it does not")
  func redactedValues() throws {
    let server = try Self.app(.router)
    defer { server.stop() }
    try load(server, version: 1)
    var body: [UInt8] = []
    for params: JSONValue in [["card": "4111"], ["pin": 1234]] {
      let session = try TestSession(server.client, body: ["graph": "shop"])
      _ = try session.call("push", ["route": "account", "params": params])
      body += try server.client.request("GET", "\(session.path)/recording", token: session.token)
        .body
    }
    let answer = try server.client.request(
      "POST", "/v1/graphs/shop/replay", token: Self.backendKey,
      headers: [("Content-Type", "application/x-ndjson")], body: body)
    let diverged = answer.json["diverged"]?.arrayValue ?? []
    #expect(diverged.map { $0["recording"]?.intValue } == [1])
    #expect(diverged.first?["code"] == "invalid_params")
  }
}

extension TestClient {
  /// A request with raw bytes and a bearer token.
  fileprivate func request(
    _ method: String, _ path: String, token: String?, headers: [(String, String)] = [],
    body: [UInt8]? = nil
  ) throws -> TestResponse {
    try request(
      method, path, headers: headers + (token.map { [("Authorization", "Bearer \($0)")] } ?? []),
      body: body)
  }
}

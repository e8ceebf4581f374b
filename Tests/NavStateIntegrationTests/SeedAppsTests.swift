import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

/// The three apps of the articles the spec grew from, driven end to end over HTTP, against one
/// server (SeedAppsTests) or through the proxy of a cluster (ClusterTests).
enum SeedScenarios {
  static let all: [(name: String, run: @Sendable (any TestClient) throws -> Void)] = [
    ("masterDetail", masterDetail),
    ("scenes", scenes),
    ("login", login),
    ("teardownCascade", teardownCascade),
    ("tabs", tabs),
  ]

  static func masterDetail(_ client: any TestClient) throws {
    let session = try TestSession(client)
    let detail = try session.call("push", ["route": "detail", "params": ["id": 42]])
    #expect(TestSession.routes(detail) == ["master", "detail"])
    let sheet = try session.call("present", ["route": "settings", "style": "sheet"])
    #expect(sheet.json["session"]?["path"]?[2]?["presentation"] == "sheet")
    #expect(sheet.json["session"]?["active"] == sheet.json["session"]?["path"]?[2]?["id"])
    let dismissed = try session.call("dismiss", [:])
    #expect(TestSession.routes(dismissed) == ["master", "detail"])
    #expect(dismissed.json["events"]?[0]?["reason"] == "dismiss")
    let popped = try session.call("pop", [:])
    #expect(TestSession.routes(popped) == ["master"])
    #expect(popped.json["events"]?[0]?["reason"] == "pop")
  }

  static func scenes(_ client: any TestClient) throws {
    let session = try TestSession(client, body: ["root": ["route": "scene1"]])
    let toScene2 = try session.call("push", ["route": "scene2", "params": ["text": "hello"]])
    #expect(toScene2.json["session"]?["path"]?[1]?["params"] == ["text": "hello"])
    #expect(try session.call("pop", [:]).status == 200)
    let toScene3 = try session.call("present", ["route": "scene3", "params": ["text": "hi"]])
    #expect(toScene3.json["session"]?["path"]?[1]?["presentation"] == "sheet")
    #expect(try session.call("back", [:]).status == 200)
    let refusals: [(String, JSONValue, String)] = [
      ("present", ["route": "scene2", "params": ["text": "x"]], "presentation_not_allowed"),
      ("push", ["route": "scene3", "params": ["text": "x"]], "presentation_not_allowed"),
      ("push", ["route": "detail", "params": ["id": 1]], "route_not_allowed"),
      ("push", ["route": "scene2"], "invalid_params"),
    ]
    for (operation, body, code) in refusals {
      let response = try session.call(operation, body)
      #expect(response.status == 422)
      #expect(response.json["code"]?.stringValue == code, "\(operation) \(body.encodedString)")
    }
    // Nothing further may be shown from scene2.
    _ = try session.call("push", ["route": "scene2", "params": ["text": "a"]])
    #expect(
      try session.call("present", ["route": "scene3", "params": ["text": "b"]]).json["code"]
        == "route_not_allowed")
  }

  static func login(_ client: any TestClient) throws {
    let session = try TestSession(client, body: ["root": ["route": "login"]])
    let forgot = try session.call("present", ["route": "forgotPassword"])
    #expect(forgot.json["session"]?["path"]?[1]?["presentation"] == "sheet")
    _ = try session.call("dismiss", [:])
    let signup = try session.call("present", ["route": "signup", "style": "fullScreenCover"])
    #expect(signup.json["session"]?["path"]?[1]?["presentation"] == "fullScreenCover")
    let fromSignup = try session.call("push", ["route": "dashboard"])
    #expect(TestSession.routes(fromSignup) == ["login", "signup", "dashboard"])
    _ = try session.call("dismiss", ["all": true])
    _ = try session.call("push", ["route": "dashboard"])
    let cover = try session.call("present", ["route": "signup"])
    #expect(cover.json["code"] == "presentation_not_allowed")
    #expect(
      try session.call("present", ["route": "forgotPassword"]).json["code"] == "route_not_allowed")
    let root = try session.call("pop", ["toRoot": true])
    #expect(TestSession.routes(root) == ["login"])
  }

  static func teardownCascade(_ client: any TestClient) throws {
    let session = try TestSession(client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])  // c2
    _ = try session.call("push", ["route": "detail", "params": ["id": 2]])  // c3
    _ = try session.call("present", ["route": "settings"])  // c4
    let torn = try client.json(
      "DELETE", "\(session.path)/coordinators/c2", token: session.token)
    let events = try #require(torn.json["events"]?.arrayValue)
    #expect(events.map { $0["coordinator"] } == ["c4", "c3", "c2"])
    #expect(events.allSatisfy { $0["type"] == "coordinator.stopped" && $0["reason"] == "teardown" })
    #expect(events.map { $0["seq"]?.intValue } == [5, 6, 7])
    #expect(events.allSatisfy { $0["version"] == 5 })
    #expect(TestSession.routes(torn) == ["master"])
    let tab = try TestSession(client, body: ["root": ["route": "tabs"]])
    let tabTeardown = try client.json(
      "DELETE", "\(tab.path)/coordinators/c2", token: tab.token)
    #expect(tabTeardown.status == 409)
    #expect(tabTeardown.json["code"] == "cannot_tear_down_tab")
  }

  static func tabs(_ client: any TestClient) throws {
    let session = try TestSession(client, body: ["root": ["route": "tabs"]])
    #expect(TestSession.routes(session.created) == ["tabs", "home"])
    let byName = try session.call("select-tab", ["tab": "profile"])
    #expect(TestSession.routes(byName) == ["tabs", "profile"])
    #expect(byName.json["events"]?[0]?["type"] == "tab.selected")
    #expect(byName.json["events"]?[0]?["coordinator"] == "c1")
    #expect(byName.json["events"]?[0]?["tab"] == 2)
    let byIndex = try session.call("select-tab", ["tab": 1])
    #expect(TestSession.routes(byIndex) == ["tabs", "search"])
    let missing = try session.call("select-tab", ["tab": 7])
    #expect(missing.status == 422)
    #expect(missing.json["code"] == "no_such_tab")
  }
}

@Suite("The seeds' apps over HTTP")
struct SeedAppsTests {
  /// Runs `scenario` on a new app of `backend`, kept until it is done.
  private func run(_ backend: TestBackend, _ scenario: (any TestClient) throws -> Void) throws {
    let app = try TestApp(backend)
    try withExtendedLifetime(app) { try scenario(app.client) }
  }

  @Test(
    "master/detail: push a detail, present settings as a sheet from it, dismiss, pop",
    arguments: TestBackend.allCases)
  func masterDetail(backend: TestBackend) throws {
    try run(backend, SeedScenarios.masterDetail)
  }

  @Test(
    "scene1 passes text to scene2 (push) and scene3 (sheet) and refuses anything else",
    arguments: TestBackend.allCases)
  func scenes(backend: TestBackend) throws { try run(backend, SeedScenarios.scenes) }

  @Test(
    "login: forgotPassword sheet, signup cover, dashboard push, pop and popToRoot",
    arguments: TestBackend.allCases)
  func login(backend: TestBackend) throws { try run(backend, SeedScenarios.login) }

  @Test(
    "a teardown cascade, event by event: deepest first, then the torn-down one",
    arguments: TestBackend.allCases)
  func teardownCascade(backend: TestBackend) throws {
    try run(backend, SeedScenarios.teardownCascade)
  }

  @Test(
    "tabs: select by index and by name; tab.selected names the container",
    arguments: TestBackend.allCases)
  func tabs(backend: TestBackend) throws { try run(backend, SeedScenarios.tabs) }
}

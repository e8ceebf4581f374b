import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing

@testable import NavStateClient

/// A transport that answers from a script instead of a server, and records what was sent.
final class StubTransport: ClientTransport {
  struct Sent: Sendable {
    var operation: String
    var request: HTTPRequest
    var body: String
  }

  /// Answers in order: status and JSON body.
  private let answers: Mutex<[(status: Int, body: String)]>
  let sent = Mutex<[Sent]>([])

  init(_ answers: [(status: Int, body: String)]) {
    self.answers = Mutex(answers)
  }

  func send(
    _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
  ) async throws -> (HTTPResponse, HTTPBody?) {
    var text = ""
    if let body {
      text = String(decoding: try await Data(collecting: body, upTo: 1 << 20), as: UTF8.self)
    }
    sent.withLock { $0.append(Sent(operation: operationID, request: request, body: text)) }
    let answer: (status: Int, body: String) = answers.withLock {
      $0.isEmpty ? (500, "{}") : $0.removeFirst()
    }
    var fields = HTTPFields()
    fields[.contentType] = answer.status >= 400 ? "application/problem+json" : "application/json"
    // The headers the contract requires of these answers (their values are not what is tested).
    if answer.status < 300 { fields[.eTag] = "\"1\"" }
    if answer.status == 201 { fields[.location] = "/v1/sessions/s1" }
    return (
      HTTPResponse(status: .init(code: answer.status), headerFields: fields), HTTPBody(answer.body)
    )
  }

  func body(_ index: Int) throws -> [String: Any] {
    let text = sent.withLock { $0[index].body }
    return try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }
}

/// A state as the service writes it, with a leave guard on `c2` and a pending request.
func stubState(version: Int, guarded: Bool = true, pushed: Bool = true) -> String {
  let guardMember = guarded ? #","leaveGuard":{"reason":"Unsaved draft"}"# : ""
  let detail =
    #"{"id":"c2","route":"detail","params":{"id":1},"presentation":"push""# + guardMember
  let tree = pushed ? detail + #","children":[]}"# : ""
  let path = pushed ? "," + detail + "}" : ""
  let blocked =
    guarded && pushed ? #","leaveGuard":{"coordinator":"c2","reason":"Unsaved draft"}"# : ""
  return #"""
    {"id":"s1","graph":"demo","graphVersion":1,"version":\#(version),
     "createdAt":"2026-11-22T18:00:00.000Z","updatedAt":"2026-11-22T18:00:01.000Z",
     "expiresAt":"2026-11-22T18:30:01.000Z","active":"\#(pushed ? "c2" : "c1")",
     "root":{"id":"c1","route":"master","params":{},"presentation":"root","children":[\#(tree)]},
     "path":[{"id":"c1","route":"master","params":{},"presentation":"root"}\#(path)],
     "allowed":{"push":["detail"],"sheet":[],"fullScreenCover":[],"replace":[],"tabs":[],
       "pop":\#(!guarded && pushed),"back":\#(!guarded && pushed),"dismiss":false,"teardown":[],
       "redirects":{"checkout":"verifyEmail"}\#(blocked)},
     "context":{"authenticated":true,"plan":"pro","age":42,"roles":["member","admin"]},
     "pending":{"op":"push","route":"checkout","coordinator":"c2"},"shares":[]}
    """#
}

func stubMutation(version: Int, guarded: Bool, pushed: Bool, events: String = "[]") -> String {
  #"{"version":\#(version),"session":\#(stubState(version: version, guarded: guarded, pushed: pushed)),"events":\#(events)}"#
}

let leaveBlockedProblem = #"""
  {"type":"https://navstate.dev/problems/leave_blocked","title":"Operation conflicts with the session state",
   "status":409,"detail":"coordinator c2 has a leave guard","code":"leave_blocked","coordinator":"c2",
   "reason":"Unsaved draft"}
  """#

@Suite("Context, pending requests and leave guards, without a server")
struct GuardStubTests {
  let url = URL(string: "http://navstate.test")!

  @Test("a context value reads and writes as the JSON it is")
  func contextValues() throws {
    let json = #"{"a":true,"n":3,"s":"x","r":["a","b"]}"#
    let context = try JSONDecoder().decode(SessionContext.self, from: Data(json.utf8))
    #expect(context == ["a": true, "n": 3, "s": "x", "r": ["a", "b"]])
    #expect(context["n"] == .int(3) && context["a"] == .bool(true))
    let again = try JSONDecoder().decode(
      SessionContext.self, from: try JSONEncoder().encode(context))
    #expect(again == context)
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(ContextValue.self, from: Data("1.5".utf8))
    }
  }

  @Test("a state's context, pending request, leave guards and redirects")
  func stateFields() async throws {
    let transport = StubTransport([(200, stubState(version: 3))])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    let state = try await session.state()
    #expect(
      state.context == [
        "authenticated": true, "plan": "pro", "age": 42, "roles": ["member", "admin"],
      ])
    #expect(state.pending == PendingRequest(op: "push", route: "checkout", coordinator: "c2"))
    #expect(state.leaveGuards == ["c2": "Unsaved draft"])
    #expect(state.root.children.first?.leaveGuard == "Unsaved draft")
    #expect(state.allowed.redirects == ["checkout": "verifyEmail"])
    #expect(state.allowed.leaveGuard == LeaveGuard(coordinator: "c2", reason: "Unsaved draft"))
    #expect(!state.allowed.back)
    // The path's items stay as they were: a guard does not change what a NavigationStack holds.
    #expect(
      state.path.last == PathItem(id: "c2", route: "detail", params: ["id": 1], presentation: .push)
    )
  }

  @Test("the new events, and session.migrated")
  func events() async throws {
    let events = #"""
      {"lastSeq":8,"events":[
       {"seq":2,"version":2,"type":"navigation.redirected","coordinator":"c2","route":"checkout","redirect":"login"},
       {"seq":3,"version":3,"type":"context.changed","context":{"authenticated":true}},
       {"seq":4,"version":3,"type":"coordinator.stopped","coordinator":"c2","route":"login","reason":"resolved"},
       {"seq":5,"version":3,"type":"pending.applied","route":"checkout"},
       {"seq":6,"version":4,"type":"pending.dropped","route":"checkout","reason":"invalid","code":"invalid_params"},
       {"seq":7,"version":5,"type":"leaveGuard.changed","coordinator":"c3","reason":null},
       {"seq":8,"version":6,"type":"session.migrated","from":1,"to":2}]}
      """#
    let transport = StubTransport([(200, events)])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    let page = try await session.events()
    #expect(
      page.events == [
        .redirected(seq: 2, version: 2, coordinator: "c2", route: "checkout", redirect: "login"),
        .contextChanged(seq: 3, version: 3, context: ["authenticated": true]),
        .stopped(seq: 4, version: 3, coordinator: "c2", reason: "resolved"),
        .pendingApplied(seq: 5, version: 3, route: "checkout"),
        .pendingDropped(
          seq: 6, version: 4, route: "checkout", reason: "invalid", code: "invalid_params"),
        .leaveGuardChanged(seq: 7, version: 5, coordinator: "c3", reason: nil),
        .migrated(seq: 8, version: 6, from: 1, to: 2),
      ])
    #expect(page.events.map(\.seq) == Array(2...8))
  }

  @Test("a leave guard's refusal carries the operation; retryDiscarding sends it with discard")
  func retryDiscarding() async throws {
    let transport = StubTransport([
      (409, leaveBlockedProblem),
      (200, stubMutation(version: 4, guarded: false, pushed: false)),
    ])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    let refusal = await #expect(throws: NavStateError.self) {
      try await session.pop(count: 1, result: "saved")
    }
    let error = try #require(refusal)
    #expect(error.code == .leaveBlocked && error.status == 409)
    #expect(error.coordinator == "c2" && error.reason == "Unsaved draft")
    #expect(error.blockedOperation == .pop(count: 1, result: "saved"))
    #expect(try transport.body(0)["discard"] == nil)
    let mutation = try await session.retryDiscarding(error)
    #expect(mutation.state.path.count == 1)
    let retried = try transport.body(1)
    #expect(retried["discard"] as? Bool == true && retried["result"] as? String == "saved")
    // Another refusal is not retried.
    let other = NavStateError(status: 409, code: .nothingToPop, detail: "")
    await #expect(throws: other) { _ = try await session.retryDiscarding(other) }
  }

  @Test("every guarded operation sends discard only when asked")
  func discardBodies() async throws {
    let answer = (200, stubMutation(version: 2, guarded: false, pushed: false))
    let transport = StubTransport(Array(repeating: answer, count: 16))
    let session = NavStateSession(
      serverURL: url, transport: transport, id: "s1", token: "t",
      options: .init(sendIfMatch: false))
    let operations: [GuardedOperation] = [
      .pop(count: 2, result: nil), .popTo("c1", result: nil), .popToRoot(result: nil),
      .dismiss("c3", result: nil), .dismissAll(result: nil), .back(result: nil),
      .replace("detail", params: ["id": 2]), .setPath([PathEntry("master")]),
      .deepLink("/master"), .batch([.back, .push("detail", params: ["id": 1])]),
    ]
    for operation in operations {
      _ = try await session.perform(operation, discard: true)
    }
    _ = try await session.back()
    let sent = transport.sent.withLock { $0.map(\.operation) }
    #expect(
      sent == [
        "pop", "pop", "pop", "dismiss", "dismiss", "back", "replace", "putState", "deepLink",
        "batch", "back",
      ])
    for index in operations.indices {
      #expect(try transport.body(index)["discard"] as? Bool == true, "\(operations[index])")
    }
    #expect(try transport.body(operations.count)["discard"] == nil)
  }

  @Test("NavigationModel: context, pending, guards, and a refused back retried after a yes")
  @MainActor
  func model() async throws {
    let transport = StubTransport([
      (200, stubMutation(version: 3, guarded: true, pushed: true)),
      (409, leaveBlockedProblem),
      (200, stubMutation(version: 4, guarded: false, pushed: false)),
      (409, leaveBlockedProblem),
    ])
    let session = NavStateSession(serverURL: url, transport: transport, id: "s1", token: "t")
    let model = NavigationModel(session: session)
    try await model.setLeaveGuard(on: "c2", reason: "Unsaved draft")
    #expect(try transport.body(0)["reason"] as? String == "Unsaved draft")
    #expect(transport.sent.withLock { $0[0].operation } == "setLeaveGuard")
    #expect(model.leaveGuards == ["c2": "Unsaved draft"] && model.leaveGuard(of: "c2") != nil)
    #expect(model.context["plan"] == "pro")
    #expect(model.pending?.route == "checkout")
    #expect(model.allowed.leaveGuard?.coordinator == "c2")

    await #expect(throws: NavStateError.self) { try await model.back() }
    #expect(model.leaveBlocked?.reason == "Unsaved draft")
    #expect(model.leaveBlocked?.blockedOperation == .back(result: nil))
    try await model.retryDiscarding()
    #expect(model.leaveBlocked == nil && model.stack.isEmpty && model.state?.version == 4)
    #expect(try transport.body(2)["discard"] as? Bool == true)

    // Refused again, then the user stays: nothing is sent.
    await #expect(throws: NavStateError.self) { try await model.popToRoot() }
    #expect(model.leaveBlocked != nil)
    model.keepChanges()
    #expect(model.leaveBlocked == nil)
    try await model.retryDiscarding()
    #expect(transport.sent.withLock { $0.count } == 4)
  }

  @Test("the backend: its key, a merge patch with nulls, a context in a creation")
  func backend() async throws {
    let created =
      #"{"session":\#(stubState(version: 1, guarded: false, pushed: false)),"token":"app-token"}"#
    let transport = StubTransport([
      (201, created),
      (200, stubMutation(version: 2, guarded: false, pushed: false)),
      (200, stubMutation(version: 3, guarded: false, pushed: false)),
      (
        403, #"{"type":"x","title":"Backend only","status":403,"detail":"d","code":"backend_only"}"#
      ),
    ])
    let backend = NavStateBackend(
      serverURL: url, transport: transport,
      key: "k".padding(toLength: 40, withPad: "k", startingAt: 0))
    let (session, state) = try await backend.createSession(
      graph: "zumry", context: ["authenticated": false])
    #expect(session.token == "app-token" && state.context["plan"] == "pro")
    #expect(try transport.body(0)["context"] as? [String: Bool] == ["authenticated": false])
    _ = try await backend.setContext(
      ["authenticated": true, "roles": ["member"]], of: "s1", ifMatch: 1)
    _ = try await backend.patchContext(
      ["plan": nil, "authenticated": false], of: "s1", idempotencyKey: "logout-1")
    let sent = transport.sent.withLock { $0 }
    #expect(sent.map(\.operation) == ["createSession", "putContext", "patchContext"])
    for request in sent.map(\.request) {
      #expect(request.headerFields[.authorization] == "Bearer " + String(repeating: "k", count: 40))
    }
    // The generated client percent-encodes the quotes; the server reads them decoded.
    #expect(sent[1].request.method == .put)
    #expect(sent[1].request.headerFields[.ifMatch] == "%221%22")
    #expect(sent[2].request.method == .patch)
    #expect(
      sent[2].request.headerFields[.contentType]?.hasPrefix("application/merge-patch+json") == true)
    #expect(sent[2].request.headerFields[HTTPField.Name("Idempotency-Key")!] == "logout-1")
    let patch = try transport.body(2)
    #expect(patch["plan"] is NSNull && patch["authenticated"] as? Bool == false)
    #expect(try transport.body(1)["roles"] as? [String] == ["member"])
    let refused = await #expect(throws: NavStateError.self) {
      _ = try await backend.setContext([:], of: "s1")
    }
    #expect(refused?.code == .backendOnly)
  }
}

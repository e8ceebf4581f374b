import Foundation
import NavStateTestSupport
import OpenAPIRuntime
import Testing

@testable import NavStateClient

/// The code swift-openapi-generator makes from openapi.yaml (idiomatic naming), used bare, with
/// no middleware of NavStateClient's: its typed answers are the contract's.
@Suite("The generated Swift client")
struct GeneratedClientTests {
  @Test("int params, If-Match and a typed 409 through the generated client alone")
  func scenario() async throws {
    let live = try LiveServer()
    defer { live.server.stop() }
    let anonymous = Client(
      serverURL: live.server.url,
      configuration: .init(dateTranscoder: .iso8601WithFractionalSeconds),
      transport: live.transport)
    let created = try await anonymous.createSession(body: .json(.init())).created.body.json
    let client = Client(
      serverURL: live.server.url,
      configuration: .init(dateTranscoder: .iso8601WithFractionalSeconds),
      transport: live.transport, middlewares: [BearerToken(token: created.token)])
    let sid = created.session.id

    let answer = try await client.push(
      path: .init(sid: sid), headers: .init(ifMatch: "\"1\""),
      body: .json(
        .init(route: "detail", params: .init(additionalProperties: ["id": 42])))
    ).ok.body.json
    #expect(answer.version == 2)
    guard let state = answer.session else {
      Issue.record("expected the whole state, got \(answer)")
      return
    }
    #expect(state.version == 2)
    #expect(state.path.last?.params.additionalProperties["id"] == .int(42))
    guard case .coordinatorStarted(let started) = answer.events.first else {
      Issue.record("expected coordinator.started, got \(answer.events)")
      return
    }
    #expect(started.route == "detail" && started.parent == "c1")

    let stale = try await client.present(
      path: .init(sid: sid), headers: .init(ifMatch: "\"1\""),
      body: .json(.init(route: "settings")))
    guard case .preconditionFailed(let failed) = stale else {
      Issue.record("expected 412, got \(stale)")
      return
    }
    #expect(try failed.body.applicationProblemJson.version == 2)

    _ = try await client.pop(path: .init(sid: sid), body: .json(.init())).ok
    let refused = try await client.pop(path: .init(sid: sid), body: .json(.init()))
    guard case .conflict(let conflict) = refused else {
      Issue.record("expected 409, got \(refused)")
      return
    }
    #expect(try conflict.body.applicationProblemJson.code == "nothing_to_pop")

    // A client that follows the stream asks for the short answer: the same type, with no state.
    let short = try await client.push(
      path: .init(sid: sid), headers: .init(prefer: "return=minimal"),
      body: .json(.init(route: "detail", params: .init(additionalProperties: ["id": 7])))
    )
    .ok
    #expect(short.headers.preferenceApplied == "return=minimal")
    #expect(short.headers.eTag == "\"4\"")
    let minimal = try short.body.json
    #expect(minimal.version == 4 && minimal.session == nil && minimal.events.count == 1)
    guard case .coordinatorStarted(let seven) = minimal.events.first else {
      Issue.record("expected coordinator.started, got \(minimal.events)")
      return
    }
    #expect(seven.params.additionalProperties["id"] == .int(7))
  }
}

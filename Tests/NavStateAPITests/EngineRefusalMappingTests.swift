import NavJSON
import NavStateEngine
import NavStateTestSupport
import NavStateTesting
import NavigationCore
import Testing

/// Every refusal of the engine as HTTP says it (APIProblem+Engine.swift), through the router in
/// process: status, problem `code`, and the headers that go with it.
@Suite struct EngineRefusalMappingTests {
  private static func expectProblem(
    _ response: TestResponse, _ status: Int, _ code: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
    #expect(response.code == code, "\(response.text)", sourceLocation: sourceLocation)
    #expect(
      response.header("Content-Type") == "application/problem+json",
      sourceLocation: sourceLocation)
    #expect(response.json["status"]?.intValue == status, sourceLocation: sourceLocation)
  }

  @Test func missingTokenIs401WithAChallenge() throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    let response = api.send("GET", session.path)
    Self.expectProblem(response, 401, "unauthorized")
    #expect(response.header("WWW-Authenticate") == "Bearer")
  }

  @Test func malformedTokenIs401InvalidToken() throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    let response = api.send("GET", session.path, token: "not-a-token")
    Self.expectProblem(response, 401, "invalid_token")
    #expect(response.header("WWW-Authenticate") == #"Bearer error="invalid_token""#)
  }

  @Test func unknownSessionAndWrongTokenAre404Alike() throws {
    let api = try InProcessAPI()
    let one = try api.createSession()
    let other = try api.createSession()
    // Another session's token: the session does not exist for this caller.
    Self.expectProblem(api.send("GET", one.path, token: other.token), 404, "session_not_found")
    // An id no session has, with a token of the right shape.
    let unknown = "/v1/sessions/\(String(one.id.dropLast()))\(one.id.last == "A" ? "B" : "A")"
    Self.expectProblem(api.send("GET", unknown, token: one.token), 404, "session_not_found")
    Self.expectProblem(
      api.send("POST", "\(unknown)/push", token: one.token, json: ["route": "detail"]), 404,
      "session_not_found")
  }

  @Test func versionMismatchIs412WithTheCurrentETag() throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    let state = session.get()
    let etag = try #require(state.header("ETag"))
    let pushed = session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("If-Match", etag)])
    #expect(pushed.status == 200, "\(pushed.text)")
    let current = try #require(pushed.header("ETag"))
    #expect(current != etag)
    // The old version no longer matches: refused, with the version it is at now.
    let stale = session.call(
      "push", ["route": "detail", "params": ["id": 2]], headers: [("If-Match", etag)])
    Self.expectProblem(stale, 412, "version_mismatch")
    #expect(stale.header("ETag") == current)
    #expect("\"\(stale.json["version"]?.intValue ?? -1)\"" == current)
    #expect(session.get().routes == pushed.routes)
  }

  @Test func creationWithoutABackendKeyIs401WhenOnlyTheBackendCreates() throws {
    let key = "backend-key-0123456789-abcdefghijklmnop"
    let api = try InProcessAPI {
      $0.sessionCreation = .backend
      $0.backendKeys = try? BackendKeys(fileContents: Array(key.utf8))
    }
    let refused = api.send("POST", "/v1/sessions", json: [:])
    Self.expectProblem(refused, 401, "backend_key_required")
    #expect(refused.header("WWW-Authenticate") == "Bearer")
    #expect(api.send("POST", "/v1/sessions", token: key, json: [:]).status == 201)
  }

  @Test func unknownGraphIs422() throws {
    let api = try InProcessAPI()
    let response = api.send("POST", "/v1/sessions", json: ["graph": "nowhere"])
    Self.expectProblem(response, 422, "unknown_graph")
    #expect(api.store.liveSessions == 0)
  }

  @Test func perClientSessionCapIs429() throws {
    let api = try InProcessAPI { $0.maxSessionsPerClient = 1 }
    _ = try api.createSession(from: "10.0.0.1")
    let refused = api.send("POST", "/v1/sessions", json: [:], from: "10.0.0.1")
    Self.expectProblem(refused, 429, "too_many_sessions_for_client")
    #expect(refused.header("Retry-After") == "60")
    // Another address still has its share.
    #expect(api.send("POST", "/v1/sessions", json: [:], from: "10.0.0.2").status == 201)
  }

  @Test func serverSessionLimitIs503() throws {
    let api = try InProcessAPI { $0.maxSessions = 1 }
    _ = try api.createSession(from: "10.0.0.1")
    let refused = api.send("POST", "/v1/sessions", json: [:], from: "10.0.0.2")
    Self.expectProblem(refused, 503, "too_many_sessions")
    #expect(refused.header("Retry-After") == "60")
  }

  @Test func perClientStreamCapIs429() throws {
    let api = try InProcessAPI { $0.maxStreamsPerClient = 1 }
    let session = try api.createSession()
    let stream = api.send("GET", "\(session.path)/events/stream", token: session.token)
    #expect(stream.status == 200)
    #expect(stream.header("Content-Type") == "text/event-stream")
    let refused = api.send("GET", "\(session.path)/events/stream", token: session.token)
    Self.expectProblem(refused, 429, "too_many_streams_for_client")
    #expect(refused.header("Retry-After") == "10")
  }

  @Test func exhaustedMemoryBudgetIs503() throws {
    let api = try InProcessAPI { $0.maxMemoryBytes = 1 }
    let refused = api.send("POST", "/v1/sessions", json: [:])
    Self.expectProblem(refused, 503, "memory_exhausted")
    #expect(refused.header("Retry-After") == "30")
    #expect(api.store.liveSessions == 0)
  }

  @Test(arguments: [false, true])
  func unrecordedChangeIs503AndNotMade(failsLater: Bool) throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    api.store.attach(FailingStorage(later: failsLater))
    let refused = session.call("push", ["route": "detail", "params": ["id": 1]])
    Self.expectProblem(refused, 503, "journal_unavailable")
    #expect(refused.header("Retry-After") == "30")
    let state = session.get()
    #expect(state.routes == session.created.routes)
    #expect(state.json["version"] == session.created.json["session"]?["version"])
    // Nothing of it is kept: the next change gets the version the refused one would have had.
    #expect(api.store.liveSessions == 1)
  }

  @Test func navigationRefusalKeepsTheCoreCode() throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    Self.expectProblem(session.call("pop"), 409, "nothing_to_pop")
    Self.expectProblem(session.call("push", ["route": "nowhere"]), 422, "unknown_route")
  }

  @Test func idempotentRetryIsReplayed() throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    let key = [("Idempotency-Key", "retry-1")]
    let body: JSONValue = ["route": "detail", "params": ["id": 7]]
    let first = session.call("push", body, headers: key)
    #expect(first.status == 200, "\(first.text)")
    #expect(first.header("Idempotent-Replayed") == nil)
    let again = session.call("push", body, headers: key)
    #expect(again.status == 200)
    #expect(again.header("Idempotent-Replayed") == "true")
    #expect(again.header("ETag") == first.header("ETag"))
    #expect(again.body == first.body)
    // Done once: one detail screen, not two.
    #expect(session.get().routes == first.routes)
    // The same key for another request is refused.
    let misused = session.call("push", ["route": "detail", "params": ["id": 8]], headers: key)
    Self.expectProblem(misused, 422, "idempotency_key_reused")
  }

  @Test func pushThenPopRoundTrip() throws {
    let api = try InProcessAPI()
    let session = try api.createSession()
    let start = session.created.routes
    #expect(!start.isEmpty)
    let pushed = session.call("push", ["route": "detail", "params": ["id": 42]])
    #expect(pushed.status == 200, "\(pushed.text)")
    #expect(pushed.header("Content-Type") == "application/json")
    #expect(pushed.routes == start + ["detail"])
    let pushedEvents = pushed.json["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue }
    #expect(pushedEvents?.contains("coordinator.started") == true, "\(pushed.text)")
    let popped = session.call("pop")
    #expect(popped.status == 200, "\(popped.text)")
    #expect(popped.routes == start)
    let state = session.get()
    #expect(state.status == 200)
    #expect(state.routes == start)
    #expect(state.header("ETag") == popped.header("ETag"))
    #expect(api.store.liveSessions == 1)
  }
}

/// A store that keeps nothing (a full or failed disk): it says so at once, or (`later`) once
/// the engine waits for it, as a store that flushes groups of records does.
private struct FailingStorage: SessionStorage {
  var later = false
  var confirmsLater: Bool { later }

  private struct Failed: StorageConfirmation {
    func wait() -> Bool { false }
  }

  private var receipt: StorageReceipt { later ? .pending(Failed()) : .refused }

  func recordCreation(
    of session: SessionRecord, _ data: SessionRecord.Data, feed: [FeedItem]
  ) -> StorageReceipt {
    receipt
  }
  func recordChange(
    of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)?, feed: [FeedItem]
  ) -> StorageReceipt { receipt }
  func recordDecision(
    of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> StorageReceipt { receipt }
  func recordEnd(of session: SessionRecord, feed: [FeedItem]) -> StorageReceipt { receipt }
  func recordMigration(
    of session: SessionRecord, data: SessionRecord.Data, from: Int, feed: [FeedItem]
  )
    -> StorageReceipt
  { receipt }
  func recordGraph(_ version: GraphCatalog.Version) -> Bool { false }
}

import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `Idempotency-Key`: a retried mutation is answered as the first time and applied once.
@Suite("Safe retries")
struct IdempotencyTests {
  private func push(
    _ session: TestSession, id: Int, key: String?, extra: [(String, String)] = []
  ) throws -> TestResponse {
    try session.call(
      "push", ["route": "detail", "params": ["id": .int(id)]],
      headers: (key.map { [("Idempotency-Key", $0)] } ?? []) + extra)
  }

  private func version(_ session: TestSession) throws -> Int? {
    try session.get().json["version"]?.intValue
  }

  @Test(
    "a repeat with the same key is the same answer, marked replayed, and changes nothing",
    arguments: TestBackend.allCases)
  func replayed(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let first = try push(session, id: 1, key: "order-1")
    #expect(first.status == 200)
    #expect(first.header("Idempotent-Replayed") == nil)
    let again = try push(session, id: 1, key: "order-1")
    #expect(again.status == 200)
    #expect(again.header("Idempotent-Replayed") == "true")
    #expect(again.body == first.body)
    #expect(again.header("ETag") == first.header("ETag"))
    #expect(try version(session) == 2)
    let events = try server.client.json("GET", "\(session.path)/events", token: session.token)
    #expect(events.json["lastSeq"] == 2, "the repeat made no event")
    // Without a key, the same body is a new push.
    #expect(try push(session, id: 1, key: nil).json["version"] == 3)
  }

  @Test(
    "the same key with another body or path is 422 idempotency_key_reused",
    arguments: TestBackend.allCases)
  func reused(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    #expect(try push(session, id: 1, key: "k").status == 200)
    let otherBody = try push(session, id: 2, key: "k")
    #expect(otherBody.status == 422)
    #expect(otherBody.json["code"] == "idempotency_key_reused")
    let otherPath = try session.call("pop", [:], headers: [("Idempotency-Key", "k")])
    #expect(otherPath.status == 422)
    #expect(otherPath.json["code"] == "idempotency_key_reused")
    #expect(try version(session) == 2)
  }

  @Test(
    "a refusal (4xx) is a decision too: its repeat is replayed, even once it would succeed",
    arguments: TestBackend.allCases)
  func refusalsRemembered(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let refused = try session.call("pop", [:], headers: [("Idempotency-Key", "p")])
    #expect(refused.status == 409)
    _ = try push(session, id: 1, key: nil)
    // A pop would now succeed, but this key was answered 409.
    let again = try session.call("pop", [:], headers: [("Idempotency-Key", "p")])
    #expect(again.status == 409)
    #expect(again.header("Idempotent-Replayed") == "true")
    #expect(again.body == refused.body)
    #expect(try version(session) == 2)
  }

  @Test("keys belong to their session", arguments: TestBackend.allCases)
  func perSession(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let one = try TestSession(server.client)
    let two = try TestSession(server.client)
    #expect(try push(one, id: 1, key: "same").header("Idempotent-Replayed") == nil)
    let other = try push(two, id: 1, key: "same")
    #expect(other.status == 200)
    #expect(other.header("Idempotent-Replayed") == nil)
    #expect(try version(two) == 2)
  }

  @Test(
    "a key is 1 to 64 visible ASCII characters, sent once; anything else is 400",
    arguments: TestBackend.allCases)
  func invalidKeys(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    for key in [String(repeating: "k", count: 65), "a b", "caf\u{e9}"] {
      let answer = try push(session, id: 1, key: key)
      #expect(answer.status == 400, "key \(key.prefix(10))")
      #expect(answer.json["code"] == "invalid_idempotency_key")
    }
    let twice = try push(session, id: 1, key: "a", extra: [("Idempotency-Key", "b")])
    #expect(twice.status == 400)
    #expect(try version(session) == 1)
    #expect(try push(session, id: 1, key: String(repeating: "k", count: 64)).status == 200)
  }

  @Test(
    "every session mutation takes a key: PUT state, teardown (204) and DELETE",
    arguments: TestBackend.allCases)
  func everyMutation(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    let state: JSONValue = [
      "path": [
        ["route": "master", "presentation": "root"],
        ["route": "detail", "params": ["id": 5], "presentation": "push"],
      ]
    ]
    let put = try server.client.json(
      "PUT", "\(session.path)/state", token: session.token, body: state,
      headers: [("Idempotency-Key", "s")])
    #expect(put.status == 200)
    let putAgain = try server.client.json(
      "PUT", "\(session.path)/state", token: session.token, body: state,
      headers: [("Idempotency-Key", "s")])
    #expect(putAgain.header("Idempotent-Replayed") == "true")
    let top = try #require(put.json["session"]?["active"]?.stringValue)
    let teardown = try server.client.json(
      "DELETE", "\(session.path)/coordinators/\(top)", token: session.token,
      headers: [("Idempotency-Key", "t")])
    #expect(teardown.status == 200)
    let teardownAgain = try server.client.json(
      "DELETE", "\(session.path)/coordinators/\(top)", token: session.token,
      headers: [("Idempotency-Key", "t")])
    #expect(teardownAgain.status == 200)
    #expect(teardownAgain.header("Idempotent-Replayed") == "true")
    // Without the key, the same teardown finds the coordinator stopped: 204.
    let plain = try server.client.json(
      "DELETE", "\(session.path)/coordinators/\(top)", token: session.token)
    #expect(plain.status == 204)
    #expect(try version(session) == 3)
    let deleted = try server.client.json(
      "DELETE", session.path, token: session.token, headers: [("Idempotency-Key", "d")])
    #expect(deleted.status == 204)
  }

  @Test("the newest 256 keys are kept; the oldest then goes", arguments: TestBackend.allCases)
  func capacity(backend: TestBackend) throws {
    let server = try TestApp(backend)
    defer { server.stop() }
    let session = try TestSession(server.client)
    for index in 0...256 {
      let answer = try session.call(
        index % 2 == 0 ? "push" : "pop",
        index % 2 == 0 ? ["route": "detail", "params": ["id": 1]] : [:],
        headers: [("Idempotency-Key", "key-\(index)")])
      #expect(answer.status == 200)
    }
    // key-0 (a push) fell out: the same request is applied again.
    let forgotten = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("Idempotency-Key", "key-0")])
    #expect(forgotten.header("Idempotent-Replayed") == nil)
    #expect(forgotten.json["version"] == 259)
    let kept = try session.call(
      "push", ["route": "detail", "params": ["id": 1]], headers: [("Idempotency-Key", "key-2")])
    #expect(kept.header("Idempotent-Replayed") == "true")
  }

  @Test("keys survive a graceful restart and a crash (--data-dir, --fsync always)")
  func keptAcrossRestarts() throws {
    let path = NSTemporaryDirectory() + "navstate-idempotency-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let arguments = ["--data-dir", path, "--fsync", "always", "--snapshot-interval", "0"]
    let first = try ServerProcess(arguments)
    let session = try TestSession(first.client)
    let pushed = try push(session, id: 1, key: "a")
    let refused = try session.call("dismiss", [:], headers: [("Idempotency-Key", "b")])
    #expect(refused.status == 409)
    #expect(first.stop() == 0)

    // Graceful: the snapshot holds the keys.
    let second = try ServerProcess(arguments)
    let resumed = TestSession(client: second.client, id: session.id, token: session.token)
    let replayed = try push(resumed, id: 1, key: "a")
    #expect(replayed.header("Idempotent-Replayed") == "true")
    #expect(replayed.body == pushed.body)
    #expect(
      try resumed.call("dismiss", [:], headers: [("Idempotency-Key", "b")]).body == refused.body)
    let later = try push(resumed, id: 2, key: "c")
    #expect(later.json["version"] == 3)
    // A crash: only the journal holds key c.
    kill(second.process.processIdentifier, SIGKILL)
    second.process.waitUntilExit()

    let third = try ServerProcess(arguments)
    defer { third.stop() }
    let again = TestSession(client: third.client, id: session.id, token: session.token)
    let afterCrash = try push(again, id: 2, key: "c")
    #expect(afterCrash.header("Idempotent-Replayed") == "true")
    #expect(afterCrash.body == later.body)
    #expect(try version(again) == 3)
  }
}

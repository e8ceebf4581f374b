import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A data directory written by the previous build (journal format 1: request bodies) starts,
/// every session as it was, and is rewritten at once in format 2 (domain commands).
@Suite("Data directory format upgrade")
struct FormatUpgradeTests {
  private static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../Fixtures/data-dir-v1").standardized

  /// The value with every object's members in key order (expected.json was written sorted),
  /// and without the state's `expiresAt`, which every call moves.
  private func withoutExpiry(_ value: JSONValue) -> JSONValue {
    guard case .object(var object) = value else { return value }
    object.members.removeAll { $0.key == "expiresAt" }
    return canonical(.object(object))
  }

  private func withoutGraphVersion(_ value: JSONValue) -> JSONValue {
    guard case .object(var object) = value else { return value }
    // Members that came after format 1: the graph's version, the context, shares.
    object.members.removeAll {
      $0.key == "graphVersion" || $0.key == "context" || $0.key == "shares"
    }
    return .object(object)
  }

  private func canonical(_ value: JSONValue) -> JSONValue {
    switch value {
    case .object(let object):
      .object(
        JSONObject(
          object.members.sorted { $0.key < $1.key }.map {
            JSONObject.Member(key: $0.key, value: canonical($0.value))
          }))
    case .array(let elements): .array(elements.map(canonical))
    default: value
    }
  }

  /// The record tags of a journal file, in order.
  private func tags(of file: String) throws -> [UInt8] {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
    var tags: [UInt8] = []
    var offset = 0
    while offset + 9 <= bytes.count {
      let length = (0..<4).reduce(0) { $0 | Int(bytes[offset + $1]) << (8 * $1) }
      // The zeroed room allocated ahead of the records, left by a crash.
      guard length > 0 else { break }
      tags.append(bytes[offset + 8])
      offset += 8 + length
    }
    return tags
  }

  @Test("a format-1 directory starts with every session and event as it was, then is format 2")
  func upgradeInPlace() throws {
    let path = NSTemporaryDirectory() + "navstate-upgrade-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    try FileManager.default.copyItem(
      atPath: Self.fixture.appendingPathComponent("dir").path, toPath: path)
    let expected = try JSONParser.parse(
      [UInt8](Data(contentsOf: Self.fixture.appendingPathComponent("expected.json"))))
    guard case .object(let sessions) = expected else {
      Issue.record("expected.json is not an object")
      return
    }
    let oldJournals = try FileManager.default.contentsOfDirectory(atPath: path)
      .filter { $0.hasPrefix("journal.") }
    #expect(try oldJournals.contains { try tags(of: path + "/" + $0).contains(2) })

    for round in 0..<2 {
      let server = try ServerProcess(["--data-dir", path])
      for member in sessions.members where member.key != "__deleted" {
        let token = try #require(member.value["token"]?.stringValue)
        let session = TestSession(client: server.client, id: member.key, token: token)
        let state = try session.get()
        #expect(state.status == 200, "round \(round), \(member.key)")
        // The fixture's build had no graph versions: every session is on version 1 of its graph.
        #expect(state.json["graphVersion"] == .int(1), "round \(round), \(member.key)")
        #expect(state.json["context"] == .object(JSONObject()), "round \(round), \(member.key)")
        #expect(
          withoutExpiry(withoutGraphVersion(state.json))
            == member.value["state"].map(withoutExpiry),
          "round \(round), \(member.key)")
        let events = try server.client.json(
          "GET", "\(session.path)/events?after=0", token: token)
        #expect(
          canonical(events.json) == member.value["events"].map(canonical),
          "round \(round), \(member.key)")
      }
      for deleted in sessions["__deleted"]?.arrayValue ?? [] {
        let id = try #require(deleted.stringValue)
        let probe = try server.client.json(
          "GET", "/v1/sessions/\(id)", token: String(repeating: "A", count: 43))
        #expect(probe.status == 404)
      }
      #expect(server.stop() == 0)
      // The upgrade rewrote the directory at start: no format-1 record is left.
      for journal in try FileManager.default.contentsOfDirectory(atPath: path)
      where journal.hasPrefix("journal.") {
        let found = try tags(of: path + "/" + journal)
        #expect(!found.contains(1) && !found.contains(2), "\(journal) holds format-1 records")
      }
    }

    // Changes now are journaled as commands (5), and replayed from them after a crash.
    let server = try ServerProcess(["--data-dir", path, "--fsync", "always"])
    // Session 6pE… shows scene3 as a sheet over scene1.
    let first = try #require(sessions.members.first { $0.key == "6pEKSBaK1LThKVMJPJTTFg" })
    let session = TestSession(
      client: server.client, id: first.key, token: first.value["token"]?.stringValue ?? "")
    let before = try session.get().json["version"]?.intValue ?? 0
    let dismissed = try session.call(
      "dismiss", ["result": ["n": .number(JSONNumber(validating: "1.50")!)]])
    #expect(dismissed.status == 200)
    let presented = try session.call(
      "present", ["route": "scene3", "params": ["text": "again"]],
      headers: [("Idempotency-Key", "k")])
    #expect(presented.status == 200)
    let state = try session.get()
    kill(server.process.processIdentifier, SIGKILL)
    server.process.waitUntilExit()
    let newest = try FileManager.default.contentsOfDirectory(atPath: path)
      .filter { $0.hasPrefix("journal.") }
      .max { Int($0.dropFirst(8)) ?? 0 < Int($1.dropFirst(8)) ?? 0 }
    #expect(
      try tags(of: path + "/" + (newest ?? "")) == [10, 10],
      "changes are journaled with who made them (tag 8, issue 34), with their feed items in one frame (tag 10)"
    )
    let restarted = try ServerProcess(["--data-dir", path])
    defer { restarted.stop() }
    let back = TestSession(client: restarted.client, id: session.id, token: session.token)
    let replayed = try back.get()
    #expect(replayed.json["version"]?.intValue == before + 2)
    #expect(withoutExpiry(replayed.json) == withoutExpiry(state.json))
    let replay = try back.call(
      "present", ["route": "scene3", "params": ["text": "again"]],
      headers: [("Idempotency-Key", "k")])
    #expect(replay.header("Idempotent-Replayed") == "true")
  }
}

import Foundation
import NavJSON
import NavStateTestSupport
import Testing

/// `--data-dir`: a graceful restart brings every session back as it was.
@Suite("Sessions across restarts")
struct PersistenceTests {
  private func temporaryDirectory() -> String {
    NSTemporaryDirectory() + "navstate-restart-\(UUID().uuidString)"
  }

  /// The state without `expiresAt`, which every call moves.
  private func comparable(_ response: TestResponse) -> JSONValue? {
    guard case .object(var object) = response.json else { return nil }
    object.members.removeAll { $0.key == "expiresAt" }
    return .object(object)
  }

  @Test("a graceful restart brings back every session: states, events, tokens, versions")
  func gracefulRestart() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    var sessions: [TestSession] = []
    for _ in 0..<3 { sessions.append(try TestSession(first.client)) }
    _ = try sessions[0].call("push", ["route": "detail", "params": ["id": 1]])
    _ = try sessions[0].call("present", ["route": "settings"])
    _ = try sessions[1].call("push", ["route": "detail", "params": ["id": 2]])
    _ = try sessions[1].call("pop")
    var states: [JSONValue?] = []
    var events: [String] = []
    for session in sessions {
      states.append(comparable(try session.get()))
      events.append(
        try first.client.json("GET", "\(session.path)/events", token: session.token).text)
    }
    #expect(first.stop() == 0)

    let second = try ServerProcess(["--data-dir", path])
    defer { second.stop() }
    for (index, session) in sessions.enumerated() {
      let again = TestSession(client: second.client, id: session.id, token: session.token)
      #expect(comparable(try again.get()) == states[index], "session \(index)")
      #expect(
        try second.client.json("GET", "\(again.path)/events", token: again.token).text
          == events[index])
    }
    // They carry on: the next version, the next ids and sequence numbers.
    let again = TestSession(client: second.client, id: sessions[0].id, token: sessions[0].token)
    let dismissed = try again.call("dismiss")
    #expect(dismissed.status == 200)
    #expect(dismissed.json["session"]?["version"] == 4)
    // Events 1 to 3 started c1, c2 and c3; the dismiss stops c3 as event 4.
    #expect(dismissed.json["events"]?[0]?["seq"] == 4)
    #expect(dismissed.json["events"]?[0]?["coordinator"] == "c3")
    // A wrong token is still refused.
    let wrong = try second.client.json(
      "GET", sessions[0].path, token: String(repeating: "A", count: 43))
    #expect(wrong.status == 404)
  }

  @Test("a damaged snapshot stops start-up with the file and the offset, status 65")
  func damagedSnapshot() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let first = try ServerProcess(["--data-dir", path])
    _ = try TestSession(first.client)
    #expect(first.stop() == 0)
    let file = path + "/snapshot"
    var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
    bytes[bytes.count / 2] ^= 0xFF
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    let outcome = try ProcessTests.runToExit(["--port", "0", "--data-dir", path])
    #expect(outcome.status == 65)
    #expect(outcome.errors.contains(file))
    #expect(outcome.errors.contains("damaged at offset"))
  }
}

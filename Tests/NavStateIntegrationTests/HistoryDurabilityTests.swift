import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// With `--data-dir`, a session's history survives a crash and a graceful restart exactly as
/// its state does: the same entries, the same states at every kept version, the same
/// breadcrumbs, past the versions the history has dropped.
@Suite("History across restarts")
struct HistoryDurabilityTests {
  /// What the server says of a session's past: its history, every kept version's state
  /// (without `expiresAt`, which each call moves) and its breadcrumbs.
  private func past(_ session: TestSession) throws -> [JSONValue] {
    let history = try session.client.json(
      "GET", "\(session.path)/history?limit=1000", token: session.token)
    let oldest = history.json["oldest"]?.intValue ?? 1
    let newest = history.json["version"]?.intValue ?? 0
    var answers = [history.json]
    for version in oldest...newest {
      var state =
        try session.client.json("GET", "\(session.path)?at=\(version)", token: session.token)
        .json.objectValue ?? JSONObject()
      state["expiresAt"] = nil
      answers.append(.object(state))
    }
    answers.append(
      try session.client.json(
        "GET", "\(session.path)/history?format=breadcrumbs", token: session.token
      ).json)
    return answers
  }

  @Test("kill -9, then a graceful restart: the same history, states at every version, breadcrumbs")
  func survivesCrashAndRestart() throws {
    let path = NSTemporaryDirectory() + "navstate-history-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    // 150 versions with 100 shown: the oldest have gone in a chunk, so the kept start is a
    // state of its own, not the creation.
    let arguments = ["--data-dir", path, "--history-versions", "100", "--fsync", "always"]
    let first = try ServerProcess(arguments)
    let session = try TestSession(first.client)
    for id in 0..<75 {
      #expect(
        try session.call("push", ["route": "detail", "params": ["id": .int(id)]]).status == 200)
      #expect(try session.call(id % 5 == 0 ? "back" : "pop").status == 200)
    }
    _ = try session.call("restore", ["version": 120])
    let before = try past(session)
    #expect(before[0]["oldest"] == 53)
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()

    let crashed = try ServerProcess(arguments)
    let afterCrash = TestSession(client: crashed.client, id: session.id, token: session.token)
    #expect(try past(afterCrash) == before)
    #expect(crashed.stop() == 0)

    let restarted = try ServerProcess(arguments)
    defer { restarted.stop() }
    let afterRestart = TestSession(client: restarted.client, id: session.id, token: session.token)
    #expect(try past(afterRestart) == before)
  }
}

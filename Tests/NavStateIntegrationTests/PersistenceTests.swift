import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
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

/// The journal: what was answered survives a crash.
@Suite("Sessions across crashes")
struct CrashTests {
  private func temporaryDirectory() -> String {
    NSTemporaryDirectory() + "navstate-crash-\(UUID().uuidString)"
  }

  private func crash(_ server: ServerProcess) {
    kill(server.process.processIdentifier, SIGKILL)
    server.process.waitUntilExit()
  }

  /// The last answer each client got before the crash.
  private final class Acknowledged: @unchecked Sendable {
    let lock = NSLock()
    var states: [String: (version: Int, state: JSONValue?)] = [:]
    var created: [(id: String, token: String)] = []
  }

  private static func withoutExpiry(_ value: JSONValue?) -> JSONValue? {
    guard case .object(var object) = value else { return nil }
    object.members.removeAll { $0.key == "expiresAt" }
    return .object(object)
  }

  @Test(
    "kill -9 under load with --fsync always: every change answered 2xx is there after a restart")
  func nothingAnsweredIsLost() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    // Snapshots every half second: some are taken while changes land, so the replay must tell
    // the changes a snapshot already has from those it has not.
    let server = try ServerProcess([
      "--data-dir", path, "--fsync", "always", "--snapshot-interval", "0.5",
    ])
    let sessions = try (0..<4).map { _ in try TestSession(server.client) }
    let acknowledged = Acknowledged()
    let port = server.port
    let killer = Thread { [self] in
      Thread.sleep(forTimeInterval: 2.2)
      crash(server)
    }
    killer.start()
    // Threads of their own (not a pool no wider than the cores): all five run until the crash.
    let finished = DispatchGroup()
    for worker in 0..<5 {
      finished.enter()
      Thread {
        defer { finished.leave() }
        work(worker)
      }.start()
    }
    @Sendable func work(_ worker: Int) {
      let client = HTTPTestClient(port: port)
      var round = 0
      while true {
        round += 1
        if worker == 4 {
          // One client makes sessions.
          guard let made = try? client.json("POST", "/v1/sessions"), made.status == 201,
            let id = made.json["session"]?["id"]?.stringValue,
            let token = made.json["token"]?.stringValue
          else { return }
          acknowledged.lock.withLock { acknowledged.created.append((id, token)) }
          continue
        }
        let session = sessions[worker]
        let operation = round % 2 == 1 ? "push" : "pop"
        let body: JSONValue =
          round % 2 == 1 ? ["route": "detail", "params": ["id": .int(round)]] : [:]
        guard
          let answer = try? client.json(
            "POST", "\(session.path)/\(operation)", token: session.token, body: body),
          answer.status == 200, let version = answer.json["session"]?["version"]?.intValue
        else { return }
        acknowledged.lock.withLock {
          acknowledged.states[session.id] = (version, Self.withoutExpiry(answer.json["session"]))
        }
      }
    }
    finished.wait()
    while killer.isExecuting { usleep(10_000) }

    let restarted = try ServerProcess(["--data-dir", path])
    defer { restarted.stop() }
    #expect(acknowledged.states.count == 4)
    for session in sessions {
      let acked = try #require(acknowledged.states[session.id])
      let now = try TestSession(client: restarted.client, id: session.id, token: session.token)
        .get()
      let version = try #require(now.json["version"]?.intValue)
      // A change written but not yet answered when the process died may be there too.
      #expect(version >= acked.version)
      if version == acked.version { #expect(Self.withoutExpiry(now.json) == acked.state) }
    }
    #expect(!acknowledged.created.isEmpty)
    for (id, token) in acknowledged.created {
      let now = try TestSession(client: restarted.client, id: id, token: token).get()
      #expect(now.status == 200, "session \(id), made before the crash")
    }
  }

  @Test("a torn last journal record is dropped and cut off; damage before it stops start-up")
  func tornAndDamagedJournal() throws {
    let path = temporaryDirectory()
    defer { try? FileManager.default.removeItem(atPath: path) }
    let server = try ServerProcess([
      "--data-dir", path, "--fsync", "always", "--snapshot-interval", "0",
    ])
    let session = try TestSession(server.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    crash(server)
    let journals = try FileManager.default.contentsOfDirectory(atPath: path)
      .filter { $0.hasPrefix("journal.") }.sorted()
    let journal = URL(fileURLWithPath: path + "/" + journals.last!)
    let written = try [UInt8](Data(contentsOf: journal))
    // The records, then the zeroed room allocated ahead of them, which a crash leaves.
    var end = 0
    while end + 8 <= written.count {
      let length = (0..<4).reduce(0) { $0 | Int(written[end + $1]) << (8 * $1) }
      guard length > 0 else { break }
      end += 8 + length
    }
    #expect(end > 0 && written[end...].allSatisfy { $0 == 0 })
    let good = Array(written[..<end])

    // A changed byte in the first record, with more after it: refused (and nothing changes).
    var damaged = good
    damaged[10] ^= 0xFF
    try Data(damaged).write(to: journal)
    let refused = try ProcessTests.runToExit(["--port", "0", "--data-dir", path])
    #expect(refused.status == 65)
    #expect(refused.errors.contains("damaged at offset 0"))

    // A crash in the middle of a record: its first bytes only. Dropped, and the rest is there.
    try Data(good + [40, 0, 0, 0, 1, 2]).write(to: journal)
    let torn = try ServerProcess([
      "--data-dir", path, "--log-level", "warning", "--snapshot-interval", "0",
    ])
    // Crashed again before any snapshot: the torn record was cut off the older file, which now
    // reads clean though a newer journal follows it.
    crash(torn)
    #expect(try [UInt8](Data(contentsOf: journal)) == good)

    // In the newest file (which each start makes, empty, and a crash leaves; its records repeat
    // the older file's, and are skipped on replay by their versions): torn inside the room
    // allocated ahead (zeros after it), and torn before a page that a machine crash left
    // unwritten (zeros, then a later page that was written). Both dropped, and the file cut.
    func newest() throws -> URL {
      let names = try FileManager.default.contentsOfDirectory(atPath: path)
        .filter { $0.hasPrefix("journal.") }
      let last = names.max { Int($0.dropFirst(8)) ?? 0 < Int($1.dropFirst(8)) ?? 0 }
      return URL(fileURLWithPath: path + "/" + (last ?? ""))
    }
    let tornRecord = [UInt8]([40, 0, 0, 0, 9, 9, 9, 9, 1, 2, 3])
    let page = 4096
    #expect(good.count + 8 < page)
    // A long record whose second page never reached the disk: zeros, then a written page.
    let overlapping =
      [0x88, 0x13, 0, 0, 9, 9, 9, 9] + [UInt8](repeating: 1, count: page - good.count - 8)
      + [UInt8](repeating: 0, count: page) + good
    // No record after the last: zeros to the end of its page (written before the rest of the
    // page was), then a page written later.
    let zerosToPageEnd = [UInt8](repeating: 0, count: page - good.count) + good
    for tail in [tornRecord + [UInt8](repeating: 0, count: 2 * page), overlapping, zerosToPageEnd] {
      let file = try newest()
      try Data(good + tail).write(to: file)
      let started = try ServerProcess([
        "--data-dir", path, "--log-level", "warning", "--snapshot-interval", "0",
      ])
      crash(started)
      #expect(try [UInt8](Data(contentsOf: file)) == good)
    }
    // A damaged record with intact ones after it, then the room a crash leaves: damage.
    let roomAfterDamage = try newest()
    try Data(damaged + [UInt8](repeating: 0, count: 2 * page)).write(to: roomAfterDamage)
    let damagedThenRoom = try ProcessTests.runToExit(["--port", "0", "--data-dir", path])
    #expect(damagedThenRoom.status == 65)
    #expect(damagedThenRoom.errors.contains("damaged at offset 0"), "\(damagedThenRoom.errors)")
    // Zeros, then records, with no whole page of zeros between: damage, not a crash's end.
    let file = try newest()
    try Data(good + [UInt8](repeating: 0, count: 100) + good).write(to: file)
    let zeroed = try ProcessTests.runToExit(["--port", "0", "--data-dir", path])
    #expect(zeroed.status == 65)
    #expect(zeroed.errors.contains("damaged at offset \(good.count)"), "\(zeroed.errors)")
    try Data(good).write(to: file)

    let restarted = try ServerProcess(["--data-dir", path, "--log-level", "warning"])
    defer { restarted.stop() }
    let again = TestSession(client: restarted.client, id: session.id, token: session.token)
    #expect(TestSession.routes(try again.get()) == ["master", "detail"])
  }
}

/// `--node`: a proxy routes by the id's prefix; a node knows only its own ids.
@Suite("Node names")
struct NodeNameIntegrationTests {
  @Test("ids start with the node's name; another node's id is the same 404 as an unknown one")
  func idsCarryTheNodesName() throws {
    let path = NSTemporaryDirectory() + "navstate-node-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let server = try ServerProcess(["--node", "east-1", "--data-dir", path])
    let session = try TestSession(server.client)
    #expect(session.id.hasPrefix("east-1."))
    #expect(session.created.header("Location") == "/v1/sessions/\(session.id)")
    let unknown = try server.client.json(
      "GET", "/v1/sessions/east-1.\(String(repeating: "A", count: 22))", token: session.token)
    let foreign = try server.client.json(
      "GET", "/v1/sessions/west-2.\(session.id.dropFirst(7))", token: session.token)
    #expect(foreign.status == 404)
    #expect(foreign.json == unknown.json)
    // Restarted on its data directory, under its name, it knows the session again.
    #expect(server.stop() == 0)
    let again = try ServerProcess(["--node", "east-1", "--data-dir", path])
    defer { again.stop() }
    let restored = TestSession(client: again.client, id: session.id, token: session.token)
    #expect(try restored.get().json["id"]?.stringValue == session.id)
  }

  @Test("a data directory starts only under the name its sessions were issued with (status 64)")
  func dataDirectoryKeepsItsName() throws {
    let path = NSTemporaryDirectory() + "navstate-node-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let server = try ServerProcess(["--node", "east-1", "--data-dir", path])
    let session = try TestSession(server.client)
    #expect(server.stop() == 0)
    let renamed = try ProcessTests.runToExit(
      ["--port", "0", "--node", "west-2", "--data-dir", path])
    #expect(renamed.status == 64)
    #expect(renamed.errors.contains("started with --node east-1"))
    #expect(renamed.errors.contains("start it with --node east-1"))
    let unnamed = try ProcessTests.runToExit(["--port", "0", "--data-dir", path])
    #expect(unnamed.status == 64)
    #expect(unnamed.errors.contains("start it with --node east-1"))
    // Refused without touching it: under its own name, the session is still there.
    let again = try ServerProcess(["--node", "east-1", "--data-dir", path])
    defer { again.stop() }
    let restored = TestSession(client: again.client, id: session.id, token: session.token)
    #expect(try restored.get().status == 200)

    // And a directory of a server without a name stays without one.
    let plain = NSTemporaryDirectory() + "navstate-node-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: plain) }
    #expect(try ServerProcess(["--data-dir", plain]).stop() == 0)
    let named = try ProcessTests.runToExit(["--port", "0", "--node", "n1", "--data-dir", plain])
    #expect(named.status == 64)
    #expect(named.errors.contains("start it without --node"))
  }
}

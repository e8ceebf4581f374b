import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `--postgres` with one node and a real PostgreSQL (a throwaway cluster per test): what is
/// acknowledged outlives the process, a paused database refuses changes and recovers by itself,
/// and the start-up rules hold.
@Suite("Sessions in PostgreSQL", .enabled(if: PostgresServer.canRun), .serialized)
struct PostgresStoreTests {
  static func node(_ database: PostgresServer, _ extra: [String] = []) throws -> ServerProcess {
    try ServerProcess(["--postgres", database.url, "--node", "n1"] + extra)
  }

  /// Everything a client reads of a session, but its expiry (a read moves it on).
  static func observed(_ client: any TestClient, _ session: TestSession) throws -> [JSONValue] {
    var state = try client.json("GET", session.path, token: session.token).json.objectValue ?? [:]
    state["expiresAt"] = nil
    let history = try client.json("GET", "\(session.path)/history", token: session.token).json
    let events = try client.json("GET", "\(session.path)/events", token: session.token).json
    var pasts: [JSONValue] = []
    for version in 1...(state["version"]?.intValue ?? 1) {
      var past =
        try client.json("GET", "\(session.path)?at=\(version)", token: session.token).json
        .objectValue ?? [:]
      past["expiresAt"] = nil
      pasts.append(.object(past))
    }
    return [.object(state), history, events] + pasts
  }

  /// Waits until `session` answers 200 (a restarted node claims its slot once the old lease ran
  /// out); the seconds it took.
  static func waitServed(_ client: HTTPTestClient, _ session: TestSession, within seconds: Double)
    throws -> Double
  {
    let started = Date()
    while Date().timeIntervalSince(started) < seconds {
      if (try? client.json("GET", session.path, token: session.token).status) == 200 {
        return Date().timeIntervalSince(started)
      }
      usleep(50_000)
    }
    throw PostgresTestFailure.notServed(session.id)
  }

  @Test("kill -9, then a graceful restart: state, history, events, shares and keys come back")
  func outlivesTheProcess() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let lease = ["--lease-seconds", "1"]
    let first = try Self.node(database, lease)
    let session = try TestSession(first.client)
    #expect(session.id.hasPrefix("n1."))
    _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
    let keyed = try session.call(
      "push", ["route": "detail", "params": ["id": 2]], headers: [("Idempotency-Key", "k-2")])
    #expect(keyed.status == 200)
    _ = try session.call("present", ["route": "settings"])
    let share = try first.client.json(
      "POST", "\(session.path)/shares", token: session.token,
      body: ["mode": "drive", "label": "iPad"])
    #expect(share.status == 201)
    let shareToken = try #require(share.json["token"]?.stringValue)
    let ended = try TestSession(first.client)
    #expect(
      try first.client.json("DELETE", ended.path, token: ended.token).status == 204)
    let before = try Self.observed(first.client, session)

    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    let second = try Self.node(database, lease)
    let restarted = TestSession(client: second.client, id: session.id, token: session.token)
    // The killed process's lease (1 s) runs out first: until then 503 store_unavailable.
    let early = try second.client.json("GET", session.path, token: session.token)
    if early.status != 200 {
      #expect(early.status == 503 && early.code == "store_unavailable", "\(early.text)")
      #expect(early.header("Retry-After") != nil)
    }
    _ = try Self.waitServed(second.client, restarted, within: 10)
    #expect(try Self.observed(second.client, restarted) == before)
    // The key's answer was kept with its change: the repeat is a replay, not a second push.
    let replay = try restarted.call(
      "push", ["route": "detail", "params": ["id": 2]], headers: [("Idempotency-Key", "k-2")])
    #expect(replay.status == 200 && replay.header("Idempotent-Replayed") == "true")
    #expect(try second.client.json("GET", session.path, token: shareToken).status == 200)
    #expect(try second.client.json("GET", ended.path, token: ended.token).status == 404)
    #expect(second.stop() == 0)

    // A graceful stop gives the slot back: the next start serves at once.
    let third = try Self.node(database, lease)
    defer { _ = third.stop() }
    let again = TestSession(client: third.client, id: session.id, token: session.token)
    #expect(try third.client.json("GET", session.path, token: session.token).status == 200)
    #expect(try Self.observed(third.client, again) == before)
    // Ended sessions' rows go (the lease duty deletes them).
    let deadline = Date().addingTimeInterval(10)
    var rows = ""
    while Date() < deadline {
      rows = try database.query("SELECT count(*) FROM navstate_records")
      if rows == "7" { break }
      usleep(100_000)
    }
    #expect(rows == "7", "the live session's 7 records, the ended one's gone")
  }

  @Test("a session with many changes gets a snapshot: few rows, read back whole after kill -9")
  func snapshots() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let lease = ["--lease-seconds", "1"]
    let first = try Self.node(database, lease)
    let session = try TestSession(first.client)
    let keyed = try session.call(
      "push", ["route": "detail", "params": ["id": 0]], headers: [("Idempotency-Key", "early")])
    #expect(keyed.status == 200)
    for id in 1...150 {
      #expect(
        try session.call("push", ["route": "detail", "params": ["id": .int(id)]]).status == 200)
      #expect(try session.call("pop").status == 200)
    }
    // 302 rows written; a snapshot replaces those before it with one row, once 100 have
    // gathered, so at most 1 + 99 stay.
    let deadline = Date().addingTimeInterval(15)
    var rows = 0
    while Date() < deadline {
      rows = Int(try database.query("SELECT count(*) FROM navstate_records")) ?? 0
      if rows <= 100 { break }
      usleep(100_000)
    }
    #expect(rows <= 100, "\(rows) rows")
    let before = try Self.observed(first.client, session)
    kill(first.process.processIdentifier, SIGKILL)
    first.process.waitUntilExit()
    let second = try Self.node(database, lease)
    defer { _ = second.stop() }
    let restarted = TestSession(client: second.client, id: session.id, token: session.token)
    _ = try Self.waitServed(second.client, restarted, within: 10)
    #expect(try Self.observed(second.client, restarted) == before)
    let replay = try restarted.call(
      "push", ["route": "detail", "params": ["id": 0]], headers: [("Idempotency-Key", "early")])
    #expect(replay.header("Idempotent-Replayed") == "true", "the key survives its snapshot")
  }

  @Test("PostgreSQL paused: changes 503 store_unavailable, reads answer, recovery by itself")
  func databasePaused() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let node = try Self.node(database, ["--postgres-timeout", "0.5", "--lease-seconds", "30"])
    defer { _ = node.stop() }
    let session = try TestSession(node.client)
    let ledger = ChangeLedger(client: node.client)
    let tracked = ChangeLedger.Session(id: session.id, token: session.token)
    #expect(ledger.change(tracked, deadline: Date().addingTimeInterval(10)).acknowledged)

    database.pause()
    var resumed = false
    defer { if !resumed { database.resume() } }
    let refused = try session.call("push", ["route": "detail", "params": ["id": 999]])
    #expect(refused.status == 503, "\(refused.text)")
    #expect(refused.code == "store_unavailable")
    #expect(refused.header("Retry-After") == "1")
    let read = try session.get()
    #expect(read.status == 200, "a held session is read while the database is away")
    // A creation needs the database too.
    #expect(try node.client.json("POST", "/v1/sessions", body: [:]).status == 503)
    database.resume()
    resumed = true

    // Back by itself: a change goes through within a few seconds, no restart.
    #expect(ledger.change(tracked, deadline: Date().addingTimeInterval(15)).acknowledged)
    #expect(ledger.change(tracked, deadline: Date().addingTimeInterval(15)).acknowledged)
    // The push refused while the database was paused is in doubt: its statement sat in the
    // paused server's socket and may have been committed when it woke. The node read the
    // session back from the database, which decides; it is there once or not at all, and it is
    // the only id the ledger did not acknowledge.
    let audit = try ledger.audit([tracked], deadline: Date().addingTimeInterval(15))
    #expect(audit.lost == 0 && audit.doubled == 0 && audit.extra <= 1, "\(audit)")
    let state = try JSONParser.parse(try session.get().body, maxDepth: 10_000)
    let ids = (state["path"]?.arrayValue ?? []).compactMap { $0["params"]?["id"]?.intValue }
    #expect(ids.filter { $0 == 999 }.count == audit.extra)
    // What the node shows is what PostgreSQL holds: a new process reads the same.
    #expect(node.stop() == 0)
    let reread = try Self.node(database)
    defer { _ = reread.stop() }
    let again = try ledger.auditing(through: reread.client).audit(
      [tracked], deadline: Date().addingTimeInterval(15))
    #expect(again == audit, "\(again) against \(audit)")
  }

  @Test("a node whose slot moved on (epoch raised under it) commits nothing, then recovers")
  func fencedInTheDatabase() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let node = try Self.node(database, ["--lease-seconds", "2", "--postgres-timeout", "0.5"])
    defer { _ = node.stop() }
    let session = try TestSession(node.client)
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    let rows = try database.query("SELECT count(*) FROM navstate_records")
    // Another process claiming the slot raises its epoch: done here by hand, while the node's
    // own clock says it still holds the lease. Only the check in the commit stops it.
    try database.query("UPDATE navstate_slots SET epoch = epoch + 1")
    let refused = try session.call("push", ["route": "detail", "params": ["id": 2]])
    #expect(refused.status == 503 && refused.code == "store_unavailable", "\(refused.text)")
    #expect(try database.query("SELECT count(*) FROM navstate_records") == rows)
    // The node finds out at its next renewal, lets the sessions go, and claims the slot again
    // once the lease has run out: the session as it was committed, and changes again.
    let deadline = Date().addingTimeInterval(20)
    var again = TestResponse(status: 0, headers: [], body: [])
    while Date() < deadline {
      again = try session.call("push", ["route": "detail", "params": ["id": 3]])
      if again.status == 200 { break }
      usleep(100_000)
    }
    #expect(again.status == 200, "\(again.text)")
    #expect(again.routes == ["master", "detail", "detail"], "the refused push is not there")
  }

  @Test("a change under way when another node takes its slot over waits for it, then is refused")
  func takeoverFencesACommitUnderWay() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let node = try Self.node(database, ["--lease-seconds", "30", "--postgres-timeout", "5"])
    defer { _ = node.stop() }
    let session = try TestSession(node.client)
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)
    let rows = try database.query("SELECT count(*) FROM navstate_records")
    // A takeover as another node's claim makes it (a new epoch for the slot), held open in
    // psql: not committed yet.
    let takeover = try PostgresFeedTests.OpenTransaction(
      database, "UPDATE navstate_slots SET epoch = epoch + 1 WHERE slot = 'n1'")
    let answered = DispatchSemaphore(value: 0)
    let answer = Mutex<TestResponse?>(nil)
    DispatchQueue.global().async {
      let response = try? session.call("push", ["route": "detail", "params": ["id": 2]])
      answer.withLock { $0 = response }
      answered.signal()
    }
    // The commit waits for the takeover: it cannot pass on the slot as it was before.
    #expect(answered.wait(timeout: .now() + 1) == .timedOut, "the commit waits for the takeover")
    takeover.commit()
    #expect(answered.wait(timeout: .now() + 10) == .success)
    let refused = answer.withLock { $0 }
    #expect(
      refused?.status == 503 && refused?.code == "store_unavailable",
      "\(String(describing: refused?.text))")
    #expect(try database.query("SELECT count(*) FROM navstate_records") == rows)
  }

  @Test("--postgres and --data-dir are exclusive, --node is needed, a newer schema refuses (65)")
  func startupRules() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let both = try Self.run(["--postgres", database.url, "--node", "n1", "--data-dir", "/tmp/x"])
    #expect(both.status == 64, "\(both.output)")
    #expect(both.output.contains("exclusive"))
    let noNode = try Self.run(["--postgres", database.url])
    #expect(noNode.status == 64, "\(noNode.output)")
    let unreachable = try Self.run([
      "--postgres", "postgres://postgres@127.0.0.1:1/postgres", "--node", "n1",
    ])
    #expect(unreachable.status == 66, "\(unreachable.output)")
    // The tables are made at first start, at version 2.
    let node = try Self.node(database)
    #expect(node.stop() == 0)
    #expect(try database.query("SELECT max(version) FROM navstate_schema") == "2")
    // A version 1 database (no feed tables) is brought to version 2.
    try database.query(
      "DROP TABLE navstate_feed, navstate_feed_state; UPDATE navstate_schema SET version = 1")
    let upgraded = try Self.node(database)
    #expect(upgraded.stop() == 0)
    #expect(try database.query("SELECT max(version) FROM navstate_schema") == "2")
    #expect(try database.query("SELECT count(*) FROM navstate_feed_state") == "1")
    try database.query("INSERT INTO navstate_schema VALUES (3)")
    let newer = try Self.run(["--postgres", database.url, "--node", "n1"])
    #expect(newer.status == 65, "\(newer.output)")
    #expect(newer.output.contains("version 3"))
  }

  @Test("--import-from loads a data directory's sessions: ids, tokens, history as they were")
  func importsADataDirectory() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let path = NSTemporaryDirectory() + "navstate-import-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: path) }
    let keys = try PostgresFeedTests.keyFile()
    defer { try? FileManager.default.removeItem(atPath: keys.folder) }
    let old = try ServerProcess([
      "--data-dir", path, "--node", "n1", "--backend-key-file", keys.file,
    ])
    let session = try TestSession(old.client)
    _ = try session.call("push", ["route": "detail", "params": ["id": 7]])
    _ = try session.call("present", ["route": "settings"])
    let before = try Self.observed(old.client, session)
    // The feed moves in too: the same items, numbered by the shared feed.
    func withoutIDs(_ items: [JSONValue]) -> [JSONValue] {
      items.map { item in
        guard case .object(var object) = item else { return item }
        object["id"] = nil
        return .object(object)
      }
    }
    let feedBefore = withoutIDs(try PostgresFeedTests.read([old.client]).items)
    #expect(feedBefore.count >= 4)
    #expect(old.stop() == 0)

    let wrongNode = try Self.run([
      "--postgres", database.url, "--node", "n2", "--import-from", path,
    ])
    #expect(wrongNode.status == 64, "\(wrongNode.output)")
    let imported = try Self.run([
      "--postgres", database.url, "--node", "n1", "--import-from", path,
    ])
    #expect(imported.status == 0, "\(imported.output)")
    #expect(imported.output.contains("imported 1 sessions"))
    let twice = try Self.run(["--postgres", database.url, "--node", "n1", "--import-from", path])
    #expect(twice.status == 64, "a slot that has sessions is not imported into again")

    let node = try Self.node(database, ["--backend-key-file", keys.file])
    defer { _ = node.stop() }
    let moved = TestSession(client: node.client, id: session.id, token: session.token)
    #expect(try Self.observed(node.client, moved) == before)
    #expect(withoutIDs(try PostgresFeedTests.read([node.client]).items) == feedBefore)
    let after = try moved.call("push", ["route": "detail", "params": ["id": 8]])
    #expect(after.status == 200, "\(after.text)")
  }

  static func run(_ arguments: [String]) throws -> (output: String, status: Int32) {
    let process = Process()
    process.executableURL = ServerProcess.binary
    process.arguments = ["--port", "0", "--log-level", "error"] + arguments
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try ChildProcesses.run(process, killAfter: 60)
    let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return (printed, process.terminationStatus)
  }
}

enum PostgresTestFailure: Error { case notServed(String) }

import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `--shards` with a real PostgreSQL: ids carry no node name, each belongs to the shard its first
/// character names, a node makes sessions only in its own shards, serves another node's only
/// once that node's lease ran out, and gives them back when it returns.
@Suite("Shards in PostgreSQL", .enabled(if: PostgresServer.canRun), .serialized)
struct PostgresShardTests {
  static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

  static func node(_ database: PostgresServer, _ name: String, shards: String) throws
    -> ServerProcess
  {
    try ServerProcess([
      "--postgres", database.url, "--node", name, "--shards", shards, "--lease-seconds", "1",
    ])
  }

  static func shard(of session: TestSession) -> Int? {
    session.id.first.flatMap { alphabet.firstIndex(of: $0) }
  }

  /// Asks until `session` answers 200 on `client`, within `seconds`.
  static func served(_ client: HTTPTestClient, _ session: TestSession, within seconds: Double)
    throws -> Bool
  {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      if try client.json("GET", session.path, token: session.token).status == 200 { return true }
      usleep(50_000)
    }
    return false
  }

  @Test("ids without a node name: made in the node's shards, taken over, given back")
  func shardsMoveBetweenNodes() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    // Shard 63 (`_`) is no node's.
    let a = try Self.node(database, "a", shards: "0-31")
    var b = try Self.node(database, "b", shards: "32-62")
    defer { _ = b.stop() }
    var made: [TestSession] = []
    for _ in 0..<20 { made.append(try TestSession(a.client)) }
    for session in made {
      #expect(session.id.utf8.count == 22 && !session.id.contains("."), "\(session.id)")
      #expect((Self.shard(of: session) ?? 99) < 32, "\(session.id)")
    }
    // Spread over a's shards, not all in one.
    #expect(Set(made.compactMap(Self.shard)).count > 5)
    let theirs = try TestSession(b.client)
    #expect((32...62).contains(Self.shard(of: theirs) ?? 99), "\(theirs.id)")
    let session = made[0]
    #expect(try session.call("push", ["route": "detail", "params": ["id": 1]]).status == 200)

    // b does not serve a's live shard: 503, and a still does.
    let onB = TestSession(client: b.client, id: session.id, token: session.token)
    let refused = try b.client.json("GET", session.path, token: session.token)
    #expect(refused.status == 503 && refused.code == "store_unavailable", "\(refused.text)")
    #expect(try a.client.json("GET", session.path, token: session.token).status == 200)
    // A shard no node is home to holds no session.
    let orphan = "_" + String(session.id.dropFirst())
    #expect(try b.client.json("GET", "/v1/sessions/\(orphan)", token: session.token).status == 404)

    // a dies: once its lease (1 s) ran out, b serves its session as acknowledged, and changes it.
    let before = try a.client.json("GET", session.path, token: session.token).json["routes"]
    kill(a.process.processIdentifier, SIGKILL)
    a.process.waitUntilExit()
    #expect(try Self.served(b.client, onB, within: 10))
    // Taken over together: one request claimed every shard a held, not only this one's.
    let takenByB = try database.query(
      """
      SELECT count(*) FROM navstate_slots
      WHERE slot BETWEEN 'shard.00' AND 'shard.31' AND owner LIKE 'b/%' AND lease_until > now()
      """)
    #expect(takenByB == "32")
    #expect(try b.client.json("GET", session.path, token: session.token).json["routes"] == before)
    let changed = try onB.call("push", ["route": "detail", "params": ["id": 2]])
    #expect(changed.status == 200 && changed.routes == ["master", "detail", "detail"])
    // b still makes its sessions in its own shards only.
    for _ in 0..<10 {
      let fresh = try TestSession(b.client)
      #expect((32...62).contains(Self.shard(of: fresh) ?? 99), "\(fresh.id)")
    }

    // a comes back: b gives a's shards back (its next renewal), and a serves the session with
    // b's change in it.
    let back = try Self.node(database, "a", shards: "0-31")
    defer { _ = back.stop() }
    let onA = TestSession(client: back.client, id: session.id, token: session.token)
    #expect(try Self.served(back.client, onA, within: 10))
    let state = try back.client.json("GET", session.path, token: session.token)
    #expect(state.json["version"]?.intValue == 3 && state.routes == ["master", "detail", "detail"])
    #expect(try b.client.json("GET", session.path, token: session.token).status == 503)
    #expect(try b.client.json("GET", theirs.path, token: theirs.token).status == 200)

    // Every session b made in its own shards outlives b's graceful stop.
    #expect(b.stop() == 0)
    b = try Self.node(database, "b", shards: "32-62")
    let theirsAgain = TestSession(client: b.client, id: theirs.id, token: theirs.token)
    #expect(try Self.served(b.client, theirsAgain, within: 10))
  }

  @Test("a shard two nodes list stays with the one that holds it")
  func aShardListedTwiceStaysPut() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let first = try Self.node(database, "a", shards: "0-1")
    defer { _ = first.stop() }
    let second = try Self.node(database, "b", shards: "0-1")
    defer { _ = second.stop() }
    let session = try TestSession(first.client)
    // Several renewals (a quarter of the 1 s lease each): the first node keeps both shards,
    // and the second, which holds none of them, makes no session.
    usleep(2_500_000)
    #expect(try first.client.json("GET", session.path, token: session.token).status == 200)
    let owners = try database.query(
      "SELECT string_agg(DISTINCT split_part(owner, '/', 1), ',') FROM navstate_slots WHERE slot IN ('shard.00', 'shard.01')"
    )
    #expect(owners == "a")
    let refused = try second.client.json("POST", "/v1/sessions", body: [:])
    #expect(refused.status == 503 && refused.code == "store_unavailable", "\(refused.text)")
  }

  @Test("--shards: numbers and ranges from 0 to 63, and only with --postgres")
  func startupRules() throws {
    let database = try PostgresServer()
    defer { database.stop() }
    for bad in ["64", "5-3", "x", "", "0-20,"] {
      let run = try PostgresStoreTests.run([
        "--postgres", database.url, "--node", "n1", "--shards", bad,
      ])
      #expect(run.status == 64, "\(bad): \(run.output)")
      #expect(run.output.contains("--shards"), "\(run.output)")
    }
    let noStore = try PostgresStoreTests.run(["--node", "n1", "--shards", "1"])
    #expect(noStore.status == 64 && noStore.output.contains("--postgres"), "\(noStore.output)")
  }
}

import Dispatch
import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The backend feed with `--postgres` (docs/postgres.md, "The backend feed"): kept in PostgreSQL
/// with the changes that made it, served by any node for the whole cluster, its cursors good on
/// every node and after a failover, its retention kept by the nodes.
@Suite(
  "The backend feed in PostgreSQL", .serialized, .enabled(if: PostgresServer.canRun))
struct PostgresFeedTests {
  static let key = FeedTests.key

  /// A throwaway PostgreSQL and a backend key file for `body`; both gone after it, whatever
  /// happens.
  static func withDatabase(_ body: (PostgresServer, (folder: String, file: String)) throws -> Void)
    throws
  {
    let database = try PostgresServer()
    defer { database.stop() }
    let keys = try keyFile()
    defer { try? FileManager.default.removeItem(atPath: keys.folder) }
    try body(database, keys)
  }

  static func keyFile() throws -> (folder: String, file: String) {
    let folder = NSTemporaryDirectory() + "navstate-pgfeed-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    let file = folder + "/backend-keys"
    try Data((key + "\n").utf8).write(to: URL(fileURLWithPath: file))
    return (folder, file)
  }

  /// Every item after `cursor` (from the oldest kept when nil), page by page of `limit`, each
  /// page asked of the next client in turn; and the last `next`.
  static func read(
    _ clients: [any TestClient], after cursor: String? = nil, limit: Int = 1000,
    query: String = ""
  ) throws -> (items: [JSONValue], next: String?) {
    var items: [JSONValue] = []
    var after = cursor
    var turn = 0
    while true {
      var parameters = ["limit=\(limit)"]
      if let after { parameters.append("after=\(after)") }
      if !query.isEmpty { parameters.append(query) }
      let page = try clients[turn % clients.count].json(
        "GET", "/v1/feed?" + parameters.joined(separator: "&"), token: key)
      turn += 1
      guard page.status == 200 else { throw FeedReadFailure(answer: page.text) }
      let events = page.json["events"]?.arrayValue ?? []
      items += events
      after = page.json["next"]?.stringValue
      if events.isEmpty { return (items, after) }
    }
  }

  struct FeedReadFailure: Error { var answer: String }

  /// A cursor's place (`<epoch>-<tx>-<id>`), comparable.
  static func place(_ cursor: String) -> [UInt64]? {
    let parts = cursor.split(separator: "-").dropFirst().compactMap { UInt64($0) }
    return parts.count == 2 ? parts : nil
  }

  /// A transaction held open in psql, holding what it wrote out of sight until ``commit()``.
  final class OpenTransaction {
    let process = Process()
    let input = Pipe()

    init(_ database: PostgresServer, _ sql: String) throws {
      let bin = try #require(PostgresServer.binaries)
      process.executableURL = URL(fileURLWithPath: bin + "/psql")
      process.arguments = ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database.url]
      process.standardInput = input
      process.standardOutput = FileHandle.nullDevice
      try ChildProcesses.run(process, killAfter: 60)
      input.fileHandleForWriting.write(Data("BEGIN;\n\(sql);\n".utf8))
      // Until PostgreSQL has it running, with a transaction id.
      for _ in 0..<100 {
        let open = try database.query(
          "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction' AND backend_xid IS NOT NULL"
        )
        if open == "1" { return }
        usleep(50_000)
      }
      throw FeedReadFailure(answer: "the open transaction never started")
    }

    func commit() {
      input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
      try? input.fileHandleForWriting.close()
      process.waitUntilExit()
    }
  }

  /// For each session among `items`: its `screen.viewed` items form one chain (each names the
  /// one before it as `previous`), so none is missing, doubled or out of order; returns how
  /// many each has.
  static func viewChains(_ items: [JSONValue]) -> (counts: [String: Int], broken: [String]) {
    var last: [String: String] = [:]
    var counts: [String: Int] = [:]
    var broken: [String] = []
    for item in items where item["type"] == "screen.viewed" {
      guard let session = item["session"]?.stringValue,
        let screenID = item["screenId"]?.stringValue
      else { continue }
      let previous = item["previous"]?["screenId"]?.stringValue
      if let known = last[session], previous != known {
        broken.append("\(session): \(previous ?? "nil") after \(known)")
      }
      last[session] = screenID
      counts[session, default: 0] += 1
    }
    return (counts, broken)
  }

  @Test("one node: pages, filters, cursors, a kill -9 and retention")
  func oneNode() throws {
    try Self.withDatabase { database, keys in
      let options = [
        "--postgres", database.url, "--node", "n1", "--lease-seconds", "1",
        "--backend-key-file", keys.file, "--feed-retention", "20", "--postgres-timeout", "0.5",
      ]
      var server = try ServerProcess(options)
      let session = try TestSession(server.client)
      for id in 1...4 {
        _ = try session.call("push", ["route": "detail", "params": ["id": .int(id)]])
      }

      let all = try Self.read([server.client]).items
      let types = all.compactMap { $0["type"]?.stringValue }
      #expect(types.first == "session.started")
      #expect(types.filter { $0 == "screen.viewed" }.count == 5, "\(types)")
      #expect(Set(all.compactMap { $0["session"]?.stringValue }) == [session.id])
      // Pages of one item read the same items.
      let paged = try Self.read([server.client], limit: 1).items
      #expect(paged.map { $0["id"] } == all.map { $0["id"] })
      // Filters.
      let viewed = try Self.read([server.client], query: "types=screen.viewed").items
      #expect(viewed.count == 5 && viewed.allSatisfy { $0["type"] == "screen.viewed" })
      let other = try TestSession(server.client)
      let mine = try Self.read([server.client], query: "session=\(session.id)").items
      #expect(mine.map { $0["id"] } == all.map { $0["id"] })
      let theirs = try Self.read([server.client], query: "session=\(other.id)").items
      #expect(theirs.first?["type"] == "session.started" && theirs.count == 2)
      // CloudEvents.
      let cloud = try server.client.json(
        "GET", "/v1/feed?limit=1&format=cloudevents", token: Self.key)
      #expect(cloud.json["events"]?[0]?["specversion"] == "1.0")
      #expect(cloud.json["events"]?[0]?["subject"]?.stringValue == session.id)
      // Cursors this feed never issued: a node's own form, another epoch, nonsense.
      for cursor in ["n1.0000abcd-5", "00000001-5-5", "abc", String(repeating: "9", count: 70)] {
        let refused = try server.client.json("GET", "/v1/feed?after=\(cursor)", token: Self.key)
        #expect(refused.status == 400 && refused.json["code"] == "invalid_cursor", "\(cursor)")
      }
      let firstID = try #require(all.first?["id"]?.stringValue)
      let epoch = String(firstID.prefix(8))
      let future = try server.client.json(
        "GET", "/v1/feed?after=\(epoch)-99999999999-1", token: Self.key)
      #expect(future.status == 400 && future.json["code"] == "invalid_cursor")

      // kill -9: the feed is where it was, and a cursor goes on.
      let middle = try #require(all[2]["id"]?.stringValue)
      kill(server.process.processIdentifier, SIGKILL)
      server.process.waitUntilExit()
      server = try ServerProcess(options)
      let again = TestSession(client: server.client, id: session.id, token: session.token)
      _ = try PostgresStoreTests.waitServed(server.client, again, within: 15)
      let after = try Self.read([server.client], after: middle).items
      #expect(after.map { $0["id"] } == all.dropFirst(3).map { $0["id"] } + theirs.map { $0["id"] })

      // Retention 20: once more than that were written, the oldest go (within a few upkeeps),
      // and a cursor behind them is 410 with where to start.
      for id in 5...40 {
        _ = try again.call("push", ["route": "detail", "params": ["id": .int(id)]])
      }
      var expired: TestResponse?
      for _ in 0..<100 {
        let answer = try server.client.json("GET", "/v1/feed?after=\(firstID)", token: Self.key)
        if answer.status == 410 {
          expired = answer
          break
        }
        usleep(100_000)
      }
      let gone = try #require(expired, "the feed was never trimmed")
      #expect(gone.json["code"] == "cursor_expired")
      let oldest = try #require(gone.json["oldest"]?.stringValue)
      let kept = try Self.read([server.client], after: oldest).items
      #expect(kept.count >= 20 && kept.count <= 40, "\(kept.count) kept")
      let chains = Self.viewChains(kept)
      #expect(chains.broken.isEmpty, "\(chains.broken)")
      let unstarted = try server.client.json("GET", "/v1/feed?limit=1", token: Self.key)
      #expect(unstarted.json["events"]?[0]?["id"] == kept.first?["id"])

      // PostgreSQL paused: the feed is 503 store_unavailable, and answers again once it is back.
      database.pause()
      let paused = try server.client.json("GET", "/v1/feed?after=\(oldest)", token: Self.key)
      let pausedFunnel = try server.client.json(
        "POST", "/v1/analytics/funnel", token: Self.key,
        body: ["graph": "demo", "steps": ["master", "detail"]])
      database.resume()
      #expect(pausedFunnel.status == 503 && pausedFunnel.json["code"] == "store_unavailable")
      #expect(paused.status == 503 && paused.json["code"] == "store_unavailable", "\(paused.text)")
      #expect(paused.header("Retry-After") == "1")
      var back = 0
      for _ in 0..<100 {
        back = try server.client.json("GET", "/v1/feed?after=\(oldest)", token: Self.key).status
        if back == 200 { break }
        usleep(100_000)
      }
      #expect(back == 200)
      _ = server.stop()
    }
  }

  @Test("a transaction still open holds readers back: no item passes one that shows up later")
  func frontier() throws {
    try Self.withDatabase { database, keys in
      let server = try ServerProcess([
        "--postgres", database.url, "--node", "n1", "--backend-key-file", keys.file,
      ])
      defer { _ = server.stop() }
      let session = try TestSession(server.client)
      let start = try #require(try Self.read([server.client]).next)
      // A copy of the first item, written by a transaction that stays open; then a change,
      // committed by a later transaction.
      let open = try OpenTransaction(
        database,
        "INSERT INTO navstate_feed (slot, session, kind, item) SELECT slot, session, kind, item FROM navstate_feed ORDER BY tx, id LIMIT 1"
      )
      _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
      let held = try server.client.json("GET", "/v1/feed?after=\(start)", token: Self.key)
      #expect(held.status == 200)
      #expect(held.json["events"]?.arrayValue?.isEmpty == true, "\(held.text)")
      let heldNext = try #require(held.json["next"]?.stringValue)
      open.commit()
      // Going on from where the held page said: the open transaction's item first, then the
      // change's, none passed over.
      let after = try Self.read([server.client], after: heldNext).items
      let seen = (held.json["events"]?.arrayValue ?? []) + after
      let types = seen.compactMap { $0["type"]?.stringValue }
      #expect(types.first == "session.started", "\(types)")
      #expect(types.dropFirst().contains("screen.viewed"), "\(types)")
    }
  }

  @Test("after a reload, screen.left's durationMs counts from when the screen was shown")
  func durationAcrossAReload() throws {
    try Self.withDatabase { database, keys in
      let options = [
        "--postgres", database.url, "--node", "n1", "--lease-seconds", "1",
        "--backend-key-file", keys.file,
      ]
      var server = try ServerProcess(options)
      let session = try TestSession(server.client)
      // Long enough after the creation that a duration counted from it would show.
      sleep(3)
      _ = try session.call("push", ["route": "detail", "params": ["id": 1]])
      let pushed = Date()
      kill(server.process.processIdentifier, SIGKILL)
      server.process.waitUntilExit()
      server = try ServerProcess(options)
      defer { _ = server.stop() }
      let again = TestSession(client: server.client, id: session.id, token: session.token)
      _ = try PostgresStoreTests.waitServed(server.client, again, within: 15)
      _ = try again.call("pop", [:])
      let shown = Date().timeIntervalSince(pushed) * 1000
      let left = try Self.read([server.client], query: "types=screen.left").items.last
      let duration = try #require(left?["durationMs"]?.intValue)
      #expect(left?["screen"] == "detail")
      #expect(Double(duration) <= shown + 500, "\(duration) ms, shown for \(shown) ms")
      #expect(Double(duration) >= shown - 1500, "\(duration) ms, shown for \(shown) ms")
    }
  }

  @Test("a cluster: any node serves every node's items, cursors go on anywhere and after kill -9")
  func cluster() throws {
    try Self.withDatabase { database, keys in
      let cluster = try LocalCluster(
        nodes: 3, postgres: database.url,
        options: [
          "--lease-seconds", "2", "--postgres-timeout", "0.4", "--backend-key-file", keys.file,
        ])
      defer {
        _ = cluster.stop()
        cluster.removeFiles()
      }
      let nodes = try ["n1", "n2", "n3"].map { HTTPTestClient(port: try cluster.port(ofNode: $0)) }
      let (all, victims) = try PostgresFailoverTests.sessions(cluster, on: "n2", count: 2)
      #expect(Set(all.map { PostgresFailoverTests.homeNode(of: $0) }) == ["n1", "n2", "n3"])
      let ledger = ChangeLedger(client: cluster.client)
      for session in all { ledger.change(session, deadline: Date().addingTimeInterval(10)) }

      // Through the proxy, naming no node; and the same, a page at a time from each node in turn.
      let whole = try Self.read([cluster.client])
      let started = Set(
        whole.items.filter { $0["type"] == "session.started" }.compactMap {
          $0["session"]?.stringValue
        })
      #expect(started == Set(all.map(\.id)))
      let turns = try Self.read(nodes, limit: 3)
      #expect(turns.items.map { $0["id"] } == whole.items.map { $0["id"] })
      let funnel = try cluster.client.json(
        "POST", "/v1/analytics/funnel", token: Self.key,
        body: ["graph": "demo", "steps": ["master", "detail"]])
      #expect(funnel.json["steps"]?[1]?["sessions"]?.intValue == all.count, "\(funnel.text)")

      // A stream on n1 sees a change made on n3, from a cursor n2 issued.
      let onN3 = try #require(all.first { PostgresFailoverTests.homeNode(of: $0) == "n3" })
      let n2Cursor = try #require(
        nodes[1].json("GET", "/v1/feed?limit=1000", token: Self.key).json["next"]?.stringValue)
      let stream = try EventStreamClient(
        port: try cluster.port(ofNode: "n1"), path: "/v1/feed/stream?types=screen.viewed",
        token: Self.key, lastEventCursor: n2Cursor)
      ledger.change(onN3, deadline: Date().addingTimeInterval(10))
      let streamed = stream.next(timeout: 10)
      #expect(streamed?.type == "screen.viewed")
      #expect(streamed?.data.contains(onN3.id) == true, "\(String(describing: streamed))")
      // It went on after the cursor it was given, not from the oldest item.
      let streamedPlace = try #require(streamed?.cursor.flatMap(Self.place))
      let givenPlace = try #require(Self.place(n2Cursor))
      #expect(givenPlace.lexicographicallyPrecedes(streamedPlace))
      // `?node=` names no particular feed: every node serves the whole one. `session=` takes any
      // node's session.
      let named = try nodes[0].json("GET", "/v1/feed?node=n2&limit=1000", token: Self.key)
      let unnamed = try Self.read([nodes[2]]).items
      #expect(named.status == 200)
      #expect(named.json["events"]?.arrayValue?.map { $0["id"] } == unnamed.map { $0["id"] })
      let onlyN3 = try Self.read([nodes[0]], query: "session=\(onN3.id)").items
      #expect(!onlyN3.isEmpty)
      #expect(onlyN3.allSatisfy { $0["session"]?.stringValue == onN3.id })
      // The same 22 characters under a node's name are another session's id, with no items.
      let elsewhere = "n1." + onN3.id
      #expect(try Self.read([nodes[0]], query: "session=\(elsewhere)").items.isEmpty)

      // kill -9 n2 under changes: its sessions change on another node; read from a cursor n2
      // issued before, on any node, every acknowledged change has its item, once, in order.
      let beforeKill = try #require(
        nodes[1].json("GET", "/v1/feed?limit=1000", token: Self.key).json["next"]?.stringValue)
      try cluster.crash(node: "n2")
      DispatchQueue.concurrentPerform(iterations: all.count) { index in
        for _ in 0..<3 { ledger.change(all[index], deadline: Date().addingTimeInterval(30)) }
      }
      let audit = try ledger.audit(all, deadline: Date().addingTimeInterval(20))
      #expect(audit.lost == 0 && audit.doubled == 0 && audit.extra == 0, "\(audit)")
      let survivors = [nodes[0], nodes[2]]
      let afterKill = try Self.read(survivors, after: beforeKill, limit: 7).items
      let whole2 = try Self.read([cluster.client]).items
      #expect(Self.viewChains(whole2).broken.isEmpty, "\(Self.viewChains(whole2).broken)")
      // One `screen.viewed` per version: the start and each change acknowledged.
      let counts = Self.viewChains(whole2).counts
      for session in all {
        let version = try cluster.client.json("GET", session.path, token: session.token).json[
          "version"]?.intValue
        #expect(counts[session.id] == version, "\(session.id)")
      }
      #expect(
        afterKill.filter { $0["type"] == "screen.viewed" }.count == 3 * all.count,
        "the items of the changes made after the kill")
      let changedAfterKill = Set(afterKill.compactMap { $0["session"]?.stringValue })
      #expect(changedAfterKill.isSuperset(of: victims.map(\.id)))
    }
  }
}

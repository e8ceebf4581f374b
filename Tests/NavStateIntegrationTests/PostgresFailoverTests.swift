import Dispatch
import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `deploy/local-cluster N PORT --postgres URL`: three nodes behind nginx on one throwaway
/// PostgreSQL, leases of 2 s. A node killed or hung under load has its sessions served by
/// another within the lease plus 5 s; a hung node that wakes commits nothing; a node that comes
/// back serves again. Every change is counted (``ChangeLedger``): 0 lost, 0 applied twice.
@Suite(
  "Failover with sessions in PostgreSQL", .serialized,
  .enabled(if: PostgresServer.canRun && LocalCluster.canRun))
struct PostgresFailoverTests {
  static let lease = 2.0

  /// The node a session was made on, from its id alone: `deploy/local-cluster` gives each of
  /// the 3 nodes a run of the 64 shards (`--shards`), and an id's first character is its shard.
  /// "?" for an id that is not one of those (one with a node's name in it).
  static func homeNode(of session: ChangeLedger.Session, nodes: Int = 3) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    guard session.id.utf8.count == 22, let first = session.id.first,
      let shard = alphabet.firstIndex(of: first)
    else { return "?" }
    let node = (1...nodes).first { 64 * ($0 - 1) / nodes <= shard && shard < 64 * $0 / nodes }
    return node.map { "n\($0)" } ?? "?"
  }

  /// Sessions made through the proxy until `node` holds `count` of them.
  static func sessions(_ cluster: LocalCluster, on node: String, count: Int) throws
    -> (all: [ChangeLedger.Session], theirs: [ChangeLedger.Session])
  {
    var all: [ChangeLedger.Session] = []
    while all.filter({ homeNode(of: $0) == node }).count < count, all.count < count * 10 {
      let made = try TestSession(cluster.client)
      all.append(ChangeLedger.Session(id: made.id, token: made.token))
    }
    return (all, all.filter { homeNode(of: $0) == node })
  }

  /// Changes to every session, one after another, until `stop` is set: load while things fail.
  final class StopFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
  }

  static func background(_ ledger: ChangeLedger, _ sessions: [ChangeLedger.Session], stop: StopFlag)
    -> DispatchGroup
  {
    let group = DispatchGroup()
    DispatchQueue.global().async(group: group) {
      var index = 0
      while !stop.isSet {
        ledger.change(sessions[index % sessions.count], deadline: Date().addingTimeInterval(30))
        index += 1
      }
    }
    return group
  }

  /// Three nodes on a throwaway database, for `body`; both stopped after it, whatever happens.
  static func withCluster(_ body: (PostgresServer, LocalCluster) throws -> Void) throws {
    let database = try PostgresServer()
    defer { database.stop() }
    let cluster = try LocalCluster(
      nodes: 3, postgres: database.url,
      options: [
        "--lease-seconds", "\(lease)", "--postgres-timeout", "0.4", "--max-coordinators", "100000",
      ])
    defer {
      _ = cluster.stop()
      cluster.removeFiles()
    }
    try body(database, cluster)
  }

  @Test("kill -9 a node under load: its 30 sessions answer within the lease + 5 s, nothing lost")
  func killedNode() throws {
    try Self.withCluster { _, cluster in try Self.killedNode(cluster) }
  }

  static func killedNode(_ cluster: LocalCluster) throws {
    let (all, victims) = try sessions(cluster, on: "n2", count: 30)
    // `deploy/local-cluster --postgres` gives the nodes shards: no id carries a node's name.
    #expect(all.allSatisfy { $0.id.utf8.count == 22 && !$0.id.contains(".") })
    let ledger = ChangeLedger(client: cluster.client)
    for session in all { ledger.change(session, deadline: Date().addingTimeInterval(10)) }
    let stop = StopFlag()
    let load = background(ledger, all.filter { homeNode(of: $0) != "n2" }, stop: stop)

    let watched = victims[0]
    let seqBeforeKill = try #require(
      cluster.client.json("GET", "\(watched.path)/events", token: watched.token).json["lastSeq"]?
        .intValue)

    try cluster.crash(node: "n2")
    let killedAt = Date()
    let answeredAfter = Mutex<[Double]>([])
    DispatchQueue.concurrentPerform(iterations: victims.count) { index in
      let result = ledger.change(victims[index], deadline: killedAt.addingTimeInterval(30))
      if result.acknowledged {
        answeredAfter.withLock { $0.append(result.at.timeIntervalSince(killedAt)) }
      }
    }
    stop.set()
    load.wait()
    let times = answeredAfter.withLock { $0 }.sorted()
    #expect(times.count == victims.count, "every session of the dead node answers again")
    let median = times.isEmpty ? 0 : times[times.count / 2]
    let slowest = times.last ?? 0
    print(
      "failover: \(times.count) sessions, p50 \(median) s, max \(slowest) s (lease \(lease) s)"
    )
    #expect(slowest <= lease + 5)
    let audit = try ledger.audit(all, deadline: Date().addingTimeInterval(20))
    print("killed node: \(ledger.acknowledgedCount) acknowledged, \(audit)")
    #expect(audit.lost == 0 && audit.doubled == 0 && audit.extra == 0, "\(audit)")
    #expect(ledger.unexpectedAnswers.isEmpty, "\(ledger.unexpectedAnswers)")

    // Event sequence numbers are durable: a stream reconnected through the proxy with the last
    // id it saw before the kill resumes with the next event, no reset, no gap.
    let resumed = try streamText(
      cluster, watched, lastEventID: seqBeforeKill, until: "id: \(seqBeforeKill + 1)\n")
    #expect(resumed.contains("id: \(seqBeforeKill + 1)\n"), "\(resumed)")
    #expect(!resumed.contains("event: reset"), "\(resumed)")

    // The node comes back: it is given its slot back and serves its sessions itself again.
    cluster.restartStoppedNodes()
    let direct = HTTPTestClient(port: try cluster.port(ofNode: "n2"))
    let victim = victims[0]
    let deadline = Date().addingTimeInterval(30)
    var servedByItsNode = false
    while !servedByItsNode, Date() < deadline {
      servedByItsNode =
        (try? direct.json("GET", victim.path, token: victim.token).status) == 200
      if !servedByItsNode { usleep(100_000) }
    }
    #expect(servedByItsNode, "n2 serves its sessions again after a restart")
    for session in victims.prefix(5) {
      #expect(ledger.change(session, deadline: Date().addingTimeInterval(20)).acknowledged)
    }
    let after = try ledger.audit(all, deadline: Date().addingTimeInterval(20))
    #expect(after.lost == 0 && after.doubled == 0 && after.extra == 0, "\(after)")
  }

  /// What an event stream of `session` sends within 5 s (or until `marker` shows), opened
  /// through the proxy with `Last-Event-ID`.
  static func streamText(
    _ cluster: LocalCluster, _ session: ChangeLedger.Session, lastEventID: Int, until marker: String
  ) throws -> String {
    let connection = try RawHTTPClient(port: cluster.port, receiveTimeout: 1, sendTimeout: 5)
    defer { connection.close() }
    try connection.send(
      "GET \(session.path)/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(session.token)\r\nAccept: text/event-stream\r\nLast-Event-ID: \(lastEventID)\r\n\r\n"
    )
    var received: [UInt8] = []
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
      if let bytes = try? connection.readAvailable() { received += bytes }
      if String(decoding: received, as: UTF8.self).contains(marker) { break }
    }
    return String(decoding: received, as: UTF8.self)
  }

  @Test("SIGSTOP a node past its lease, then SIGCONT: its late changes are refused, not applied")
  func pausedNode() throws {
    try Self.withCluster { _, cluster in try Self.pausedNode(cluster) }
  }

  static func pausedNode(_ cluster: LocalCluster) throws {
    let (all, theirs) = try sessions(cluster, on: "n1", count: 5)
    let ledger = ChangeLedger(client: cluster.client)
    for session in all { ledger.change(session, deadline: Date().addingTimeInterval(10)) }
    let direct = HTTPTestClient(port: try cluster.port(ofNode: "n1"))
    let target = theirs[0]

    try cluster.pause(node: "n1")
    var paused = true
    defer { if paused { try? cluster.resume(node: "n1") } }
    // A change sent to the paused node itself: the kernel accepts it into the backlog, and the
    // node reads it when it wakes, believing it still holds the session.
    let late = Mutex<TestResponse?>(nil)
    let lateSent = DispatchGroup()
    DispatchQueue.global().async(group: lateSent) {
      let answer = try? direct.request(
        "POST", "\(target.path)/push",
        headers: [
          ("Authorization", "Bearer \(target.token)"), ("Content-Type", "application/json"),
        ],
        body: Array(#"{"route":"detail","params":{"id":-1}}"#.utf8), timeout: 60)
      late.withLock { $0 = answer }
    }
    // Meanwhile its sessions move to another node, and change there.
    for session in theirs {
      #expect(ledger.change(session, deadline: Date().addingTimeInterval(30)).acknowledged)
    }
    Thread.sleep(forTimeInterval: lease)
    try cluster.resume(node: "n1")
    paused = false
    lateSent.wait()
    let lateAnswer = late.withLock { $0 }
    let lateStatus = try #require(lateAnswer?.status, "the woken node answers")
    #expect(lateStatus == 503, "\(lateAnswer?.text ?? "")")
    // Nor does it serve what it held: another node holds the slot now.
    let read = try direct.json("GET", target.path, token: target.token)
    #expect(read.status == 503 && read.code == "store_unavailable", "\(read.text)")
    for session in theirs {
      #expect(ledger.change(session, deadline: Date().addingTimeInterval(20)).acknowledged)
    }
    let audit = try ledger.audit(all, deadline: Date().addingTimeInterval(20))
    print("paused node: \(ledger.acknowledgedCount) acknowledged, \(audit)")
    #expect(audit.lost == 0 && audit.doubled == 0 && audit.extra == 0, "\(audit)")
  }
}

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

/// PostgreSQL's own failover: a primary with a synchronous standby (`synchronous_commit = on`,
/// `synchronous_standby_names = '*'`), the node given both in one URL with
/// `target_session_attrs=read-write` (libpq connects to whichever accepts writes). The primary
/// is killed under load and the standby promoted: every change the node acknowledged is on the
/// new primary, none twice.
@Suite("PostgreSQL primary fails over to its standby", .enabled(if: PostgresServer.canRun))
struct PostgresStandbyTests {
  @Test("kill -9 the primary, promote the synchronous standby: 0 lost, 0 applied twice")
  func standbyPromoted() throws {
    let primary = try PostgresServer(settings: [
      "synchronous_commit=on", "synchronous_standby_names=*", "wal_level=replica",
    ])
    defer { primary.stop() }
    let standby = try PostgresServer(settings: ["hot_standby=on"], standbyOf: primary)
    defer { standby.stop() }
    // Replication is synchronous before the first change (a commit waits for the standby).
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline,
      try primary.query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") != "1"
    {
      usleep(100_000)
    }
    #expect(
      try primary.query("SELECT count(*) FROM pg_stat_replication WHERE sync_state = 'sync'") == "1"
    )
    let url =
      "postgres://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/postgres?target_session_attrs=read-write"
    let node = try ServerProcess([
      "--postgres", url, "--node", "n1", "--postgres-timeout", "1", "--lease-seconds", "5",
    ])
    defer { _ = node.stop() }
    let ledger = ChangeLedger(client: node.client)
    var sessions: [ChangeLedger.Session] = []
    for _ in 0..<8 {
      let made = try TestSession(node.client)
      sessions.append(ChangeLedger.Session(id: made.id, token: made.token))
    }
    let acknowledgedBefore = Mutex(0)
    let writers = DispatchGroup()
    for session in sessions {
      DispatchQueue.global().async(group: writers) {
        for _ in 0..<40 {
          if ledger.change(session, deadline: Date().addingTimeInterval(60)).acknowledged {
            acknowledgedBefore.withLock { $0 += 1 }
          }
        }
      }
    }
    // Under way: the primary dies with changes in flight, and the standby is promoted.
    let underWay = Date().addingTimeInterval(60)
    while acknowledgedBefore.withLock({ $0 }) < 60, Date() < underWay { usleep(10_000) }
    #expect(acknowledgedBefore.withLock { $0 } >= 60, "the writers are under way")
    primary.crash()
    Thread.sleep(forTimeInterval: 0.5)
    try standby.promote()
    writers.wait()
    #expect(ledger.acknowledgedCount == sessions.count * 40)
    let audit = try ledger.audit(sessions, deadline: Date().addingTimeInterval(30))
    print("standby promoted: \(ledger.acknowledgedCount) acknowledged, \(audit)")
    #expect(audit.lost == 0 && audit.doubled == 0 && audit.extra == 0, "\(audit)")
    #expect(ledger.unexpectedAnswers.isEmpty, "\(ledger.unexpectedAnswers)")
    // What the node answers is what the new primary holds: a new process reads it back.
    #expect(node.stop() == 0)
    let reread = try ServerProcess(["--postgres", url, "--node", "n1"])
    defer { _ = reread.stop() }
    let rereadAudit = try ledger.auditing(through: reread.client).audit(
      sessions, deadline: Date().addingTimeInterval(30))
    #expect(rereadAudit.lost == 0 && rereadAudit.doubled == 0 && rereadAudit.extra == 0)
  }
}

import Foundation
import NavJSON
import NavStateTestSupport
import NavStateTesting
import Synchronization

/// Counts changes the way a careful client makes them through failures: each is a push of
/// `detail {id: n}` under its own `Idempotency-Key`, sent again with the same key after any
/// failure (503, 504, a connection refused or cut) until it is answered 200. What the server
/// acknowledged is then checked against what it kept: every acknowledged id is in the session's
/// path exactly once (0 lost, 0 applied twice) and no other id is.
final class ChangeLedger: Sendable {
  struct Session: Sendable {
    var id: String
    var token: String
    var path: String { "/v1/sessions/\(id)" }
  }

  let client: HTTPTestClient
  private let acknowledged = Mutex<[String: [Int]]>([:])
  /// Answers that were neither 200 nor a failure worth retrying.
  private let unexpected = Mutex<[String]>([])
  private let next = Atomic<Int>(1)

  init(client: HTTPTestClient) {
    self.client = client
  }

  private init(client: HTTPTestClient, acknowledged: [String: [Int]]) {
    self.client = client
    self.acknowledged.withLock { $0 = acknowledged }
  }

  /// The same acknowledgements, audited through another server (a new process on the same
  /// database).
  func auditing(through client: HTTPTestClient) -> ChangeLedger {
    ChangeLedger(client: client, acknowledged: acknowledged.withLock { $0 })
  }

  /// Makes one change to `session`, retrying until `deadline`; true once acknowledged. Returns
  /// the time of the first failure and of the acknowledgement, for failover timings.
  @discardableResult
  func change(_ session: Session, deadline: Date) -> (acknowledged: Bool, failedAt: Date?, at: Date)
  {
    let id = next.wrappingAdd(1, ordering: .relaxed).oldValue
    let key = "ledger-\(session.id)-\(id)"
    var failedAt: Date?
    while Date() < deadline {
      let answer = try? client.json(
        "POST", "\(session.path)/push", token: session.token,
        body: ["route": "detail", "params": ["id": .int(id)]],
        headers: [("Idempotency-Key", key)])
      if let answer, answer.status == 200 {
        acknowledged.withLock { $0[session.id, default: []].append(id) }
        return (true, failedAt, Date())
      }
      if let answer, ![409, 502, 503, 504].contains(answer.status) {
        unexpected.withLock { $0.append("\(answer.status) \(answer.text)") }
        return (false, failedAt, Date())
      }
      if failedAt == nil { failedAt = Date() }
      usleep(50_000)
    }
    return (false, failedAt, Date())
  }

  var unexpectedAnswers: [String] { unexpected.withLock { $0 } }

  var acknowledgedCount: Int { acknowledged.withLock { $0.values.reduce(0) { $0 + $1.count } } }

  /// For each session: acknowledged ids missing from its path, and ids in it more than once or
  /// never acknowledged. Reads retry failures until `deadline`.
  func audit(_ sessions: [Session], deadline: Date) throws -> (lost: Int, doubled: Int, extra: Int)
  {
    var lost = 0
    var doubled = 0
    var extra = 0
    for session in sessions {
      var state: JSONValue?
      while state == nil, Date() < deadline {
        let answer = try? client.json("GET", session.path, token: session.token)
        // Parsed as deep as the tree goes: each push nests one level deeper.
        if let answer, answer.status == 200 {
          state = try JSONParser.parse(answer.body, maxDepth: 10_000)
        } else {
          usleep(100_000)
        }
      }
      guard let state else { throw LedgerError.unreadable(session.id) }
      let kept = (state["path"]?.arrayValue ?? []).compactMap { entry -> Int? in
        guard entry["route"]?.stringValue == "detail" else { return nil }
        return entry["params"]?["id"]?.intValue
      }
      let promised = acknowledged.withLock { $0[session.id] ?? [] }
      let keptCounts = Dictionary(kept.map { ($0, 1) }, uniquingKeysWith: +)
      lost += promised.filter { keptCounts[$0] == nil }.count
      doubled += keptCounts.values.filter { $0 > 1 }.count
      extra += Set(kept).subtracting(promised).count
    }
    return (lost, doubled, extra)
  }

  enum LedgerError: Error { case unreadable(String) }
}

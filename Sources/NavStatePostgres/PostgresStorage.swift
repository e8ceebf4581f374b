import NavStateEngine
import NavStatePersistence
import NavigationCore
import PostgresClient
import Synchronization

/// The engine's ``SessionStorage`` in PostgreSQL: each record (in the journal's binary format)
/// becomes a row of `navstate_records`, committed before the change is answered or streamed.
///
/// Records that arrive while a commit is under way wait together, and the next commit writes
/// them all with one statement: three array parameters (slots, sessions, payloads) unnested
/// into rows, whatever their number, and the fencing check of their slots in the same statement
/// (``SlotLeases``). The backend feed's items of those records go into `navstate_feed` in the
/// same statement (``PostgresFeed``).
///
/// A commit that PostgreSQL refused, or that the fencing check stopped, is not kept: the change
/// is refused. One with no answer in time (`--postgres-timeout`) may or may not have been
/// committed: it is refused too, and every slot this node holds is in doubt (a connection lost
/// may be a primary lost), so that nothing is built on a state that may not be the stored one.
/// Their later changes are refused until the slots are read back from the database under a new
/// epoch (``PostgresDurability``); a client's retry with the same `Idempotency-Key` then gets
/// the first answer if the change was kept.
final class PostgresStorage: SessionStorage {
  struct Pending: Sendable {
    var slot: String
    /// The slot's epoch when the record was made: it commits under this one or not at all.
    var epoch: Int64
    var session: [UInt8]
    var payload: [UInt8]
    /// The backend feed's items the record made: written to `navstate_feed` with it.
    var feed: [FeedItem]
    /// The session's end: its rows are deleted, not counted towards a snapshot.
    var ends = false
  }

  let database: Database
  /// The committer's own connection: no other statement (a snapshot, a renewal) takes it
  /// between two commits, so the next commit never waits for a new connection.
  private let commits: Database
  let leases: SlotLeases
  /// The shared feed, when the feed is on: told how many items each commit wrote.
  let feed: PostgresFeed?
  /// Set once, in `init`: the committer calls back into this storage.
  private let line = Mutex<CommitLine<Pending>?>(nil)
  /// Slots with a commit in doubt, to load again once the database answers; how many, read
  /// without the lock by every record (almost always 0).
  private let doubtful = Mutex<Set<String>>([])
  private let doubtfulCount = Atomic<Int>(0)
  /// Sessions whose end was committed: their rows are deleted by the lease duty.
  private let endedSessions = Mutex<[(slot: String, session: [UInt8])]>([])
  /// Rows each session has had committed since its last snapshot row (or its load): one with
  /// ``snapshotAfter`` of them gets a snapshot (``SessionSnapshots``).
  let rowsSinceSnapshot = Mutex<[SessionID: Int]>([:])
  static let snapshotAfter = 100

  init(database: Database, leases: SlotLeases, feed: PostgresFeed?) {
    self.database = database
    commits = Database(url: database.url, timeout: database.timeout)
    self.leases = leases
    self.feed = feed
    let line = CommitLine<Pending> { [weak self] records, sent in
      withoutActuallyEscaping(sent) { self?.commit(records, sent: $0) ?? false }
    }
    self.line.withLock { $0 = line }
  }

  /// Ends the committer (at stop) once what was enqueued is written.
  func stop() {
    line.withLock { $0 }?.stop()
    commits.close()
  }

  var confirmsLater: Bool { true }

  var refusal: EngineRefusal {
    .storeUnavailable(
      reason:
        "PostgreSQL did not keep the change in time, or this node no longer holds the session's lease",
      retryAfter: 1)
  }

  /// The key a `session` column holds (16 bytes, high word first).
  static func sessionID(_ bytes: [UInt8]) -> SessionID? {
    guard bytes.count == 16 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    for index in 0..<8 { high = high << 8 | UInt64(bytes[index]) }
    for index in 8..<16 { low = low << 8 | UInt64(bytes[index]) }
    return SessionID(high: high, low: low)
  }

  static func key(_ id: SessionID) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(16)
    for word in [id.high, id.low] {
      for shift in stride(from: 56, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift)))
      }
    }
    return bytes
  }

  private func receipt(
    _ session: SessionRecord, _ record: consuming Journal.Record, feed: [FeedItem] = [],
    ended: Bool = false
  ) -> StorageReceipt {
    let slot = session.node ?? leases.home
    guard let epoch = leases.servingEpoch(slot), !isDoubtful(slot.name) else { return .refused }
    let pending = Pending(
      slot: slot.name, epoch: epoch, session: Self.key(session.key), payload: record.payload,
      feed: feed, ends: ended)
    guard let line = line.withLock({ $0 }) else { return .refused }
    let group = line.enqueue(pending)
    return .pending(
      Confirmation(
        storage: self, line: line, group: group, key: session.key,
        endedSession: ended ? (slot.name, pending.session) : nil))
  }

  private struct Confirmation: StorageConfirmation {
    let storage: PostgresStorage
    let line: CommitLine<Pending>
    let group: CommitLine<Pending>.Group
    let key: SessionID
    let endedSession: (slot: String, session: [UInt8])?

    func wait() -> Bool {
      let kept = line.wait(for: group)
      guard kept else { return false }
      // The group's rows were counted by the committer (one lock for the group, not one each).
      if let endedSession {
        storage.endedSessions.withLock { $0.append(endedSession) }
        storage.rowsSinceSnapshot.withLock { _ = $0.removeValue(forKey: key) }
      }
      return true
    }
  }

  static let commitStatement = """
    WITH held AS (
      SELECT s.slot FROM navstate_slots AS s
      JOIN unnest($1::text[], $2::int8[]) AS f(slot, epoch) ON s.slot = f.slot AND s.epoch = f.epoch
      WHERE s.owner = $3 AND s.lease_until > now()
      FOR SHARE OF s
    ), written AS (
      INSERT INTO navstate_records (slot, session, payload)
      SELECT r.slot, r.session, r.payload
      FROM unnest($4::text[], $5::bytea[], $6::bytea[]) WITH ORDINALITY AS r(slot, session, payload, n)
      WHERE (SELECT count(*) FROM held) = cardinality($1::text[])
      ORDER BY r.n
      RETURNING 1
    ), fed AS (
      INSERT INTO navstate_feed (slot, session, kind, item)
      SELECT f.slot, f.session, f.kind, f.item
      FROM unnest($7::text[], $8::bytea[], $9::int8[], $10::bytea[])
        WITH ORDINALITY AS f(slot, session, kind, item, n)
      WHERE (SELECT count(*) FROM held) = cardinality($1::text[])
      ORDER BY f.n
      RETURNING 1
    )
    SELECT count(*)::int8 FROM written
    """

  /// Writes a group in one statement; true when every record of it was committed. A group
  /// whose records were made under different epochs of a slot (around a claim or a reload) is
  /// refused whole: the older ones can no longer commit, and a group commits all or nothing.
  /// A group the fencing check stops is refused too; the lease duty finds out what was lost
  /// (never this thread: it may hold up requests that wait under a session's lock for it).
  func commit(_ batch: [Pending], sent: (() -> Void)? = nil) -> Bool {
    var epochs: [String: Int64] = [:]
    for record in batch {
      if let known = epochs[record.slot], known != record.epoch { return false }
      epochs[record.slot] = record.epoch
    }
    var feedSlots: [String] = []
    var feedSessions: [[UInt8]] = []
    var feedKinds: [Int64] = []
    var feedItems: [[UInt8]] = []
    for record in batch {
      for item in record.feed {
        feedSlots.append(record.slot)
        feedSessions.append(record.session)
        feedKinds.append(Int64(item.kind.rawValue))
        var bytes: [UInt8] = []
        item.appendUnnumbered(to: &bytes)
        feedItems.append(bytes)
      }
    }
    do {
      let rows = try commits.query(
        Self.commitStatement,
        [
          .textArray(epochs.map(\.key)), .int64Array(epochs.map(\.value)), .text(leases.owner),
          .textArray(batch.map(\.slot)), .bytesArray(batch.map(\.session)),
          .bytesArray(batch.map(\.payload)), .textArray(feedSlots), .bytesArray(feedSessions),
          .int64Array(feedKinds), .bytesArray(feedItems),
        ], prepare: true, sent: sent)
      guard rows.integer(0, 0) == Int64(batch.count) else { return false }
      feed?.noteWritten(feedItems.count)
      rowsSinceSnapshot.withLock { counts in
        for record in batch where !record.ends {
          if let key = Self.sessionID(record.session) { counts[key, default: 0] += 1 }
        }
      }
      return true
    } catch {
      if case .server = error.kind { return false }
      // Every held slot, not only this group's: a connection lost may be a primary lost, and
      // what this node read from it before (a slot loaded again) may not have reached the
      // standby that replaces it. Read back from whatever answers next, they hold only what it
      // holds.
      doubtAll()
      return false
    }
  }

  /// Whether `slot` has a commit in doubt (read without a lock when none has).
  func isDoubtful(_ slot: String) -> Bool {
    doubtfulCount.load(ordering: .acquiring) > 0 && doubtful.withLock { $0.contains(slot) }
  }

  /// The slots with a commit in doubt. Each stays so until ``resolved(_:)``: its changes are
  /// refused until its sessions have been read back, not merely until the reload begins.
  func doubtfulSlots() -> Set<String> {
    doubtful.withLock { $0 }
  }

  /// `slot` was read back from PostgreSQL (or is no longer held): its changes go through again.
  func resolved(_ slot: String) {
    doubtful.withLock {
      $0.remove(slot)
      doubtfulCount.store($0.count, ordering: .releasing)
    }
  }

  /// Marks every held slot in doubt: the database was lost, maybe for another.
  func doubtAll() {
    let held = leases.heldSlots.map(\.name)
    doubtful.withLock {
      $0.formUnion(held)
      doubtfulCount.store($0.count, ordering: .releasing)
    }
  }

  /// Deletes the rows of sessions whose end was committed; if the database does not answer, they
  /// are tried again next time.
  func deleteEnded() {
    let ended = endedSessions.withLock { ended in
      defer { ended = [] }
      return ended
    }
    guard !ended.isEmpty else { return }
    do {
      try database.query(
        """
        DELETE FROM navstate_records AS r USING unnest($1::text[], $2::bytea[]) AS e(slot, session)
        WHERE r.slot = e.slot AND r.session = e.session
        """, [.textArray(ended.map(\.slot)), .bytesArray(ended.map(\.session))])
    } catch {
      endedSessions.withLock { $0 += ended }
    }
  }

  func recordCreation(of session: SessionRecord, _ data: SessionRecord.Data, feed: [FeedItem])
    -> StorageReceipt
  {
    receipt(session, Journal.session(session, data), feed: feed)
  }

  func recordChange(
    of session: SessionRecord, _ command: Command, data: SessionRecord.Data,
    decided: (key: String, decision: IdempotencyLedger.Decision)?, feed: [FeedItem]
  ) -> StorageReceipt {
    receipt(
      session,
      Journal.command(
        session, command, data: data, by: data.history.newestAuthor, decided: decided),
      feed: feed)
  }

  func recordDecision(
    of session: SessionRecord, key: String, _ decision: IdempotencyLedger.Decision
  ) -> StorageReceipt {
    receipt(session, Journal.decided(session, key: key, decision))
  }

  func recordEnd(of session: SessionRecord, feed: [FeedItem]) -> StorageReceipt {
    receipt(session, Journal.ended(session), feed: feed, ended: true)
  }

  func recordMigration(
    of session: SessionRecord, data: SessionRecord.Data, from: Int, feed: [FeedItem]
  ) -> StorageReceipt {
    receipt(session, Journal.migrated(session, data: data, from: from), feed: feed)
  }

  func recordGraph(_ version: GraphCatalog.Version) -> Bool {
    guard !version.source.isEmpty else { return true }
    do {
      try GraphRows.save(version, to: database)
      return true
    } catch {
      return false
    }
  }
}

import NavStateEngine
import PostgresClient
import Synchronization

/// The slots this node holds, and the statements that claim, renew and give them back.
///
/// A slot is the set of sessions a node made (their ids begin with its name), or a shard (their
/// ids begin with its character; `--shards`). Its row in
/// `navstate_slots` names the process that holds it (`owner`: the node's name and an instance
/// id drawn at start, so a restarted process is a new owner) and the fencing number (`epoch`).
/// A claim succeeds only once the lease has run out, and raises the epoch; every commit checks,
/// in its own statement, that its slots' rows still name this owner and epoch with a lease that
/// has not run out (``PostgresStorage``). So a node that lost a slot, or slept past its lease,
/// commits nothing for it, whatever it believes.
///
/// Locally a slot counts as held until `validUntil`: the time the last successful renewal was
/// sent plus the lease, on the monotonic clock. PostgreSQL's lease ends later than that (it starts
/// counting when the statement runs), so this node stops serving a slot before anyone else may
/// take it.
final class SlotLeases: Sendable {
  struct Held: Sendable {
    var name: NodeName
    var epoch: Int64
    var validUntil: Double
    /// Its sessions are loaded (false while they load).
    var ready: Bool
  }

  /// Until when a slot is served (a Double's bits; 0: not held or loading), and under which
  /// epoch, kept with `held` and read without its lock, for the slots every request asks about:
  /// this node's own and the 64 shards. (Read apart, the two may disagree for an instant; the
  /// commit's own check in PostgreSQL decides.)
  final class Served: Sendable {
    private let until = Atomic<UInt64>(0)
    private let epoch = Atomic<Int64>(0)

    /// Called under the leases' lock, so by one thread at a time. A new epoch goes out after
    /// "not served" and before its time: a reader that loads the epoch and then the time
    /// (``epoch(at:)``) never pairs a new epoch with a time not published for it. (An old
    /// epoch with a new time only makes its commit fail the check.) A renewal, same epoch,
    /// only moves the time on, so a slot that stays served never reads as not served.
    func publish(_ lease: Held?) {
      let newEpoch = lease?.epoch ?? 0
      let newUntil = lease.map { $0.ready ? $0.validUntil.bitPattern : 0 } ?? 0
      if epoch.load(ordering: .relaxed) != newEpoch {
        until.store(0, ordering: .releasing)
        epoch.store(newEpoch, ordering: .releasing)
      }
      until.store(newUntil, ordering: .releasing)
    }

    func isServed(at now: Double) -> Bool {
      Double(bitPattern: until.load(ordering: .acquiring)) > now
    }

    func epoch(at now: Double) -> Int64? {
      let epoch = epoch.load(ordering: .acquiring)
      return isServed(at: now) ? epoch : nil
    }
  }

  let owner: String
  let home: NodeName
  /// The slots this node claims at start and asks back when another node holds them: its own,
  /// and its shards (`--shards`).
  let homeSlots: [NodeName]
  private let homeNames: Set<String>
  let settings: PostgresSettings
  let database: Database
  private let held = Mutex<[String: Held]>([:])
  private let homeServed = Served()
  private let shardServed = (0..<NodeName.shardCount).map { _ in Served() }

  init(home: NodeName, settings: PostgresSettings, database: Database) {
    self.home = home
    self.settings = settings
    self.database = database
    homeSlots = [home] + settings.shards.map { NodeName.shard($0) }
    homeNames = Set(homeSlots.map(\.name))
    var generator = SystemRandomNumberGenerator()
    owner = home.name + "/" + String(generator.next() as UInt64, radix: 16)
  }

  /// Whether `slot` is one this node claims at start and asks back.
  func isHome(_ slot: String) -> Bool { homeNames.contains(slot) }

  private func served(_ slot: NodeName) -> Served? {
    // The store's own name is this very instance: no string compared on its sessions' requests.
    if slot === home { return homeServed }
    if let index = slot.shardIndex { return shardServed[index] }
    return slot.name == home.name ? homeServed : nil
  }

  /// Whether this node serves `slot` now: for its own slot and the shards, one atomic load and
  /// a clock read, on every request.
  func holds(_ slot: NodeName) -> Bool {
    if let served = served(slot) { return served.isServed(at: MonotonicClock.now()) }
    return holds(slot.name)
  }

  /// Whether this node serves the slot named `slot` now.
  func holds(_ slot: String) -> Bool {
    let now = MonotonicClock.now()
    return held.withLock { held in held[slot].map { $0.ready && $0.validUntil > now } ?? false }
  }

  /// Changes `held` under its lock, and publishes the times of the slots read without it.
  private func change<T>(_ body: (inout [String: Held]) -> T) -> T {
    held.withLock { held in
      let result = body(&held)
      homeServed.publish(held[home.name])
      for (index, served) in shardServed.enumerated() {
        served.publish(held[NodeName.shard(index).name])
      }
      return result
    }
  }

  /// The epoch `slot` is served under now; nil when it is not served. A record takes it when it
  /// is made, and is committed under it or not at all: a record made before a slot was lost
  /// never commits under the epoch of a later claim.
  func servingEpoch(_ slot: NodeName) -> Int64? {
    let now = MonotonicClock.now()
    if let served = served(slot) { return served.epoch(at: now) }
    return held.withLock { held in
      held[slot.name].flatMap { $0.ready && $0.validUntil > now ? $0.epoch : nil }
    }
  }

  var heldSlots: [NodeName] { held.withLock { $0.values.map(\.name) } }

  enum Claim: Equatable {
    case claimed(epoch: Int64)
    /// A live process holds it.
    case heldElsewhere
    /// No node of that name ever ran, or no node is home to the shard: no session can belong
    /// to it.
    case unknown
  }

  /// What a claim got: the slot asked for, and the other slots of the same dead holder, taken
  /// with it (not served until loaded, ``markReady(_:)``).
  struct ClaimResult {
    var claim: Claim
    var others: [NodeName] = []
  }

  /// Claims `slot` if no live node holds it. A node makes the rows of its home slots (its own
  /// and its shards); another node's slot is only ever taken over, never made (an id naming a
  /// node that never ran, or a shard no node is home to, claims nothing). When another process
  /// holds a home slot of this node, the slot is marked wanted, and its holder gives it back at
  /// its next renewal.
  ///
  /// Taking a slot over takes every slot its holder left with it (the same `owner`, lease run
  /// out, not wanted back): a dead node's shards go to one node, so that the proxy, which sends
  /// them all to the same backups, finds them all in one place.
  func claim(_ slot: NodeName) throws(PostgresError) -> ClaimResult {
    let sent = MonotonicClock.now()
    let isHome = isHome(slot.name)
    let parameters: [PostgresParameter] = [
      .text(slot.name), .text(owner), .int64(Int64(settings.leaseSeconds * 1000)),
    ]
    let rows =
      isHome
      ? try database.query(
        """
        INSERT INTO navstate_slots AS s (slot, owner, epoch, lease_until)
        VALUES ($1, $2, 1, now() + make_interval(secs => $3::int8 / 1000.0))
        ON CONFLICT (slot) DO UPDATE
          SET owner = excluded.owner, epoch = s.epoch + 1, lease_until = excluded.lease_until,
            wanted_until = NULL
          WHERE s.lease_until <= now()
        RETURNING slot, epoch
        """, parameters)
      : try database.query(
        """
        UPDATE navstate_slots
        SET owner = $2, epoch = epoch + 1,
          lease_until = now() + make_interval(secs => $3::int8 / 1000.0)
        WHERE lease_until <= now() AND (wanted_until IS NULL OR wanted_until <= now())
          AND (slot = $1 OR owner = (
            SELECT owner FROM navstate_slots WHERE slot = $1 AND lease_until <= now()))
        RETURNING slot, epoch
        """, parameters)
    var result = ClaimResult(claim: .heldElsewhere)
    var claimed: [(NodeName, Int64)] = []
    for row in 0..<rows.count {
      guard let name = rows.text(row, 0), let taken = NodeName.slot(named: name),
        let epoch = rows.integer(row, 1)
      else { continue }
      claimed.append((taken, epoch))
      if name == slot.name {
        result.claim = .claimed(epoch: epoch)
      } else {
        result.others.append(taken)
      }
    }
    change { held in
      for (taken, epoch) in claimed {
        held[taken.name] = Held(
          name: taken, epoch: epoch, validUntil: sent + settings.leaseSeconds, ready: false)
      }
    }
    guard case .claimed = result.claim else {
      // Not thrown from here on: what the claim took with it must still be loaded. If the
      // database fails now, the slot counts as held elsewhere, and the next request asks again.
      do throws(PostgresError) {
        if isHome {
          // Asked back for a few leases: long enough for the holder to give it back and this
          // node to claim it, short enough that a node that asked and died does not keep the
          // others from taking it over for long.
          try database.query(
            """
            UPDATE navstate_slots
            SET wanted_until = now() + make_interval(secs => 3 * $3::int8 / 1000.0)
            WHERE slot = $1 AND owner IS DISTINCT FROM $2
            """, parameters)
          return result
        }
        let exists = try database.query(
          "SELECT 1 FROM navstate_slots WHERE slot = $1", [.text(slot.name)])
        if exists.count == 0 { result.claim = .unknown }
      } catch {}
      return result
    }
    return result
  }

  /// Moves a held slot to a new epoch (not served until ``markReady(_:)``), so that no record
  /// made before commits from now on: before its sessions are read back after a commit in
  /// doubt, whatever was still on its way is either in PostgreSQL or refused. False if the
  /// slot is no longer this node's.
  func reepoch(_ slot: String) throws(PostgresError) -> Bool {
    guard let epoch = held.withLock({ $0[slot]?.epoch }) else { return false }
    let rows = try database.query(
      """
      UPDATE navstate_slots SET epoch = epoch + 1
      WHERE slot = $1 AND owner = $2 AND epoch = $3 AND lease_until > now()
      RETURNING epoch
      """, [.text(slot), .text(owner), .int64(epoch)])
    guard rows.count == 1, let next = rows.integer(0, 0) else {
      forget(slot)
      return false
    }
    change { held in
      held[slot]?.epoch = next
      held[slot]?.ready = false
    }
    return true
  }

  /// The slot's sessions are loaded: it is served from now on.
  func markReady(_ slot: String) {
    change { $0[slot]?.ready = true }
  }

  /// Whether `slot` is held here but its sessions are not loaded: claimed with another slot of
  /// its dead holder, or its reload failed. Asked at the slot's gate, where no load is under
  /// way, so the caller loads it.
  func awaitsLoad(_ slot: String) -> Bool {
    held.withLock { $0[slot].map { !$0.ready } ?? false }
  }

  /// No longer held here (lost, given back, or its load failed).
  func forget(_ slot: String) {
    change { _ = $0.removeValue(forKey: slot) }
  }

  /// What a renewal found.
  struct Renewal {
    /// Slots whose lease ran out or went to another node: their sessions must go.
    var lost: [String] = []
    /// Slots whose home node is back and asks for them.
    var wanted: [String] = []
    /// The database did not answer.
    var failed = false
  }

  /// Renews every held slot in one statement. A slot not renewed is lost; if the database does
  /// not answer, slots are lost once their local lease runs out.
  func renew() -> Renewal {
    let sent = MonotonicClock.now()
    let current = held.withLock { $0.values.map { ($0.name.name, $0.epoch) } }
    guard !current.isEmpty else { return Renewal() }
    do {
      let rows = try database.query(
        """
        UPDATE navstate_slots AS s SET lease_until = now() + make_interval(secs => $4::int8 / 1000.0)
        FROM unnest($1::text[], $2::int8[]) AS f(slot, epoch)
        WHERE s.slot = f.slot AND s.epoch = f.epoch AND s.owner = $3 AND s.lease_until > now()
        RETURNING s.slot, coalesce(s.wanted_until > now(), false)
        """,
        [
          .textArray(current.map(\.0)), .int64Array(current.map(\.1)), .text(owner),
          .int64(Int64(settings.leaseSeconds * 1000)),
        ], prepare: true)
      var renewal = Renewal()
      var renewed = Set<String>()
      for row in 0..<rows.count {
        guard let slot = rows.text(row, 0) else { continue }
        renewed.insert(slot)
        if rows.bool(row, 1) == true, !isHome(slot) { renewal.wanted.append(slot) }
      }
      change { held in
        for (slot, epoch) in current where held[slot]?.epoch == epoch {
          if renewed.contains(slot) {
            held[slot]?.validUntil = sent + settings.leaseSeconds
          } else {
            held[slot] = nil
            renewal.lost.append(slot)
          }
        }
      }
      return renewal
    } catch {
      let now = MonotonicClock.now()
      return change { held in
        var renewal = Renewal(failed: true)
        for (slot, lease) in held where lease.validUntil <= now {
          held[slot] = nil
          renewal.lost.append(slot)
        }
        return renewal
      }
    }
  }

  /// Gives `slot` back: from this statement on, no commit of this node for it passes (the epoch
  /// moves on, the lease is over), and it is free for its home node to claim. `owner` stays, so
  /// that another node taking one of the slots this process gave back takes them all.
  func release(_ slot: String) throws(PostgresError) {
    guard let epoch = held.withLock({ $0[slot]?.epoch }) else { return }
    forget(slot)
    try database.query(
      """
      UPDATE navstate_slots SET epoch = epoch + 1, lease_until = '-infinity'
      WHERE slot = $1 AND owner = $2 AND epoch = $3
      """,
      [.text(slot), .text(owner), .int64(epoch)])
  }

  /// Gives every slot back (a graceful stop), so that a restart or another node takes them at
  /// once rather than after the lease.
  func releaseAll() {
    for slot in held.withLock({ Array($0.keys) }) { try? release(slot) }
  }
}

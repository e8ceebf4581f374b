import Dispatch
public import NavStateEngine
import NavStatePersistence
import PostgresClient
import Synchronization

/// `--postgres` as the application sees it (``SessionDurability``), and the engine's
/// ``SessionLoader``: at start the schema, the graphs and this node's own slots; while it runs the
/// lease duty; on demand the slot of another node whose lease ran out; at a stop, every slot
/// given back.
public final class PostgresDurability: SessionDurability, SessionLoader {
  public let settings: PostgresSettings
  public let node: NodeName
  let database: Database
  let leases: SlotLeases
  private let storage: Mutex<PostgresStorage?> = Mutex(nil)
  /// The shared backend feed, unless the feed is off (`--feed-retention 0`).
  private let feed: Mutex<PostgresFeed?> = Mutex(nil)
  /// The store, from the restore to the stop. Held strongly and let go in ``finish(_:)``: a weak
  /// reference would put the store's reference count in a side table, and every request
  /// retains the store (about 50 more instructions a request, measured by callgrind).
  private let attached = Mutex<SessionStore?>(nil)
  /// One gate per slot: a claim, a load, a reload and an eviction of a slot happen one at a
  /// time (requests for a slot being loaded wait for it), and never hold up another slot.
  private let gates = Mutex<[String: SlotGate]>([:])
  /// Slots found held elsewhere, and until when requests for them are refused without asking
  /// the database again: during a failover every request of a dead node's sessions arrives
  /// here, and one claim per slot every quarter second is enough.
  private let heldElsewhere = Mutex<[String: Double]>([:])
  static let refusalMemory = 0.25
  /// Reloads, claims and deletions run off the lease duty (they may wait on the database far
  /// longer than a renewal may), one batch at a time.
  private let upkeepRunning = Atomic(false)

  final class SlotGate: Sendable {
    let lock = Mutex(())
  }

  public init(settings: PostgresSettings, node: NodeName) {
    self.settings = settings
    self.node = node
    database = Database(url: settings.url, timeout: settings.timeout)
    leases = SlotLeases(home: node, settings: settings, database: database)
  }

  /// Where the sessions are, for the log: the database, without a password.
  var source: String { "PostgreSQL (" + PostgresURL.redacted(settings.url) + ")" }

  private func gate(_ slot: String) -> SlotGate {
    gates.withLock { gates in
      if let gate = gates[slot] { return gate }
      let gate = SlotGate()
      gates[slot] = gate
      return gate
    }
  }

  public func restore(into store: SessionStore) throws(DurabilityFailure) -> RestoreSummary {
    do throws(Schema.SchemaFailure) {
      try Schema.prepare(database)
    } catch {
      switch error {
      case .newer(let version):
        throw DurabilityFailure(
          .badData,
          "the schema in \(source) is version \(version), newer than this server's (\(Schema.version)): run a NavState that knows it"
        )
      case .database(let failure):
        throw DurabilityFailure(.cannotOpen, "cannot use \(source): \(failure)")
      }
    }
    let conflicts: [GraphRows.Conflict]
    do throws(PostgresError) {
      for version in store.catalog.allVersions where !version.source.isEmpty {
        try GraphRows.save(version, to: database)
      }
      conflicts = try GraphRows.load(
        into: store.catalog, from: database, timeout: settings.loadTimeout)
    } catch {
      throw DurabilityFailure(.cannotOpen, "cannot read the graphs in \(source): \(error)")
    }
    if let conflict = conflicts.first { throw DurabilityFailure(.badData, conflict.description) }
    var feed: PostgresFeed?
    if store.feed.isOn {
      do throws(PostgresError) {
        // Connections of its own: feed readers never hold the commits' ones.
        feed = PostgresFeed(
          database: Database(url: settings.url, timeout: settings.timeout),
          retention: store.feed.retention, epoch: try PostgresFeed.epoch(in: database))
      } catch {
        throw DurabilityFailure(.cannotOpen, "cannot read the feed's state in \(source): \(error)")
      }
    }
    let storage = PostgresStorage(database: database, leases: leases, feed: feed)
    self.storage.withLock { $0 = storage }
    self.feed.withLock { $0 = feed }
    attached.withLock { $0 = store }
    store.attach(storage)
    store.attach(loader: self)
    if let feed { store.attach(sharedFeed: feed) }
    // This node's own slot and its shards, unless a live process holds them (this node's
    // previous process, killed less than a lease ago, or another node that took them over):
    // claimed by the lease duty once free, and served from then on.
    var warnings: [String] = []
    var sessions = 0
    var takenSlots: [String] = []
    for slot in leases.homeSlots {
      do {
        sessions += try claimAndLoad(slot, into: store).sessions
        if !leases.holds(slot.name) { takenSlots.append(slot.name) }
      } catch {
        throw DurabilityFailure(.cannotOpen, "cannot load slot \(slot.name) from \(source)")
      }
    }
    if !takenSlots.isEmpty {
      warnings.append(
        "\(takenSlots.count == 1 ? "slot" : "slots") \(takenSlots.joined(separator: ", ")) \(takenSlots.count == 1 ? "is" : "are") held by another live process; served once given back or once the lease runs out (\(settings.leaseSeconds) s)"
      )
    }
    return RestoreSummary(sessions: sessions, replayed: 0, source: source, warnings: warnings)
  }

  public func duties(for store: SessionStore) -> [Duty] {
    var duties = [
      Duty(label: "navstate.postgres.leases", interval: settings.renewInterval) { [self] in
        keepLeases()
      }
    ]
    if let feed = feed.withLock({ $0 }) {
      duties.append(
        Duty(label: "navstate.postgres.feed", interval: PostgresFeed.pumpInterval) {
          feed.pump()
          return nil
        })
    }
    return duties
  }

  public func finish(_ store: SessionStore) -> [String] {
    attached.withLock { $0 = nil }
    storage.withLock { $0 }?.stop()
    leases.releaseAll()
    database.close()
    feed.withLock { $0 }?.database.close()
    return []
  }

  // MARK: SessionLoader

  package func holds(_ slot: NodeName) -> Bool {
    leases.holds(slot)
  }

  /// A shard of this node that it holds now, drawn at random so that sessions spread over them
  /// (and a failover over the nodes that take them); if it holds none, one of them anyway, and
  /// the creation is refused at its commit, as any change of a slot not held is.
  package func creationSlot() -> NodeName? {
    let shards = leases.homeSlots.dropFirst()
    guard !shards.isEmpty else { return nil }
    let start = Int.random(in: 0..<shards.count)
    for offset in 0..<shards.count {
      let slot = shards[shards.startIndex + (start + offset) % shards.count]
      if leases.holds(slot) { return slot }
    }
    return shards[shards.startIndex + start]
  }

  package func load(slot: NodeName) throws(EngineRefusal) {
    guard let store = attached.withLock({ $0 }) else {
      throw EngineRefusal.storeUnavailable(reason: "the server is stopping", retryAfter: 1)
    }
    let now = MonotonicClock.now()
    let refuse = EngineRefusal.storeUnavailable(
      reason:
        "another node holds this session's lease (it is handing it over, or its lease has not run out yet)",
      retryAfter: 1)
    if heldElsewhere.withLock({ ($0[slot.name] ?? 0) > now }) { throw refuse }
    let claim: SlotLeases.Claim
    do {
      claim = try claimAndLoad(slot, into: store).claim
    } catch {
      throw EngineRefusal.storeUnavailable(
        reason: "PostgreSQL cannot be reached to load the session", retryAfter: 1)
    }
    // No such slot: no such session (the request goes on to answer 404).
    guard claim != .heldElsewhere else {
      heldElsewhere.withLock { $0[slot.name] = now + Self.refusalMemory }
      throw refuse
    }
    heldElsewhere.withLock { _ = $0.removeValue(forKey: slot.name) }
  }

  /// Claims `slot` and loads its sessions: what the claim found, and how many were loaded.
  /// Already held here counts as claimed. The other slots of a dead holder, taken with it, are
  /// loaded afterwards, each at its own gate.
  private func claimAndLoad(_ slot: NodeName, into store: SessionStore) throws(PostgresError)
    -> (claim: SlotLeases.Claim, sessions: Int)
  {
    var others: [NodeName] = []
    // Whatever happens to the slot asked for: a slot claimed and never loaded would be renewed
    // and never served. Off this request's thread: it waits for its own slot only. (A home
    // slot's claim takes no others, so the count is the start's.)
    defer {
      if !others.isEmpty {
        let taken = others
        DispatchQueue.global().async { [self] in
          for other in taken {
            _ = try? gate(other.name).lock.withLock { _ throws(PostgresError) in
              // A request for it may have come first and loaded it.
              if leases.awaitsLoad(other.name) { _ = try loadClaimed(other, into: store) }
            }
          }
        }
      }
    }
    return try gate(slot.name).lock.withLock {
      _ throws(PostgresError) -> (claim: SlotLeases.Claim, sessions: Int) in
      guard !leases.holds(slot.name) else { return (.claimed(epoch: 0), 0) }
      // Held but not loaded (taken with another slot, which is loading first): load it now
      // rather than answer 503 for a slot this node holds.
      if leases.awaitsLoad(slot.name) {
        return (.claimed(epoch: 0), try loadClaimed(slot, into: store))
      }
      let claimed = try leases.claim(slot)
      others = claimed.others
      guard case .claimed = claimed.claim else { return (claimed.claim, 0) }
      return (claimed.claim, try loadClaimed(slot, into: store))
    }
  }

  /// Loads the sessions of a slot just claimed (at its gate), and serves it; if the load
  /// fails, gives it back, to be claimed again by the next request: never served half loaded.
  private func loadClaimed(_ slot: NodeName, into store: SessionStore) throws(PostgresError)
    -> Int
  {
    do throws(PostgresError) {
      let count = try SlotLoad.load(
        slot, into: store, from: database, settings: settings, rows: countRows)
      leases.markReady(slot.name)
      return count
    } catch {
      try? leases.release(slot.name)
      store.evict { $0.node?.name == slot.name }
      throw error
    }
  }

  /// Lets go of a slot's sessions, unless the slot was claimed again meanwhile.
  private func evictUnlessHeld(_ slot: String, from store: SessionStore) {
    gate(slot).lock.withLock { _ in
      guard !leases.holds(slot) else { return }
      store.evict { $0.node?.name == slot }
    }
  }

  /// The lease duty: renew every slot, let go of the lost ones, give back the ones their home
  /// node asks for; then, off this thread, read back the slots with a commit in doubt, claim
  /// this node's own slots that it does not hold, delete the rows of ended sessions, write the
  /// snapshots that are due and trim the feed.
  private func keepLeases() -> String? {
    guard let store = attached.withLock({ $0 }), let storage = storage.withLock({ $0 })
    else { return nil }
    let renewal = leases.renew()
    for slot in renewal.lost { evictUnlessHeld(slot, from: store) }
    var problems: [String] = renewal.lost.map { "lost the lease of slot \($0)" }
    // As after a commit that got no answer: read every slot back once the database answers.
    // Not now: the rest would wait on a database that does not answer.
    if renewal.failed {
      storage.doubtAll()
      return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
    for slot in renewal.wanted {
      do {
        try gate(slot).lock.withLock { _ throws(PostgresError) in
          try leases.release(slot)
          store.evict { $0.node?.name == slot }
        }
        problems.append("gave slot \(slot) back to its node")
      } catch {
        problems.append("could not give slot \(slot) back: \(error)")
      }
    }
    if upkeepRunning.compareExchange(expected: false, desired: true, ordering: .acquiring)
      .exchanged
    {
      DispatchQueue.global().async { [self] in
        upkeep(store, storage)
        upkeepRunning.store(false, ordering: .releasing)
      }
    }
    return problems.isEmpty ? nil : problems.joined(separator: "; ")
  }

  /// What the lease duty leaves to another thread.
  private func upkeep(_ store: SessionStore, _ storage: PostgresStorage) {
    // Read back under a new epoch: whatever was still on its way to PostgreSQL under the old
    // one is in it by now or can no longer be (the epoch's UPDATE waits for the commits that
    // hold the slot's row). The sessions then show what PostgreSQL holds. Meanwhile the slot
    // is not served (requests wait at its gate, changes are refused).
    for slot in storage.doubtfulSlots() {
      guard let name = NodeName.slot(named: slot) else {
        storage.resolved(slot)
        continue
      }
      // A failure leaves the slot in doubt, for the next run.
      try? gate(slot).lock.withLock { _ throws(PostgresError) in
        guard try leases.reepoch(slot) else {
          store.evict { $0.node?.name == slot }
          storage.resolved(slot)
          return
        }
        _ = try SlotLoad.load(
          name, into: store, from: database, settings: settings, rows: countRows)
        storage.resolved(slot)
        leases.markReady(slot)
      }
    }
    for slot in leases.homeSlots where !leases.holds(slot.name) {
      _ = try? claimAndLoad(slot, into: store)
    }
    storage.deleteEnded()
    SessionSnapshots.take(in: store, storage: storage)
    feed.withLock { $0 }?.trimIfDue()
  }

  /// What a load found: each session's rows, so that one read back from many gets its
  /// snapshot soon.
  private func countRows(_ key: SessionID, _ rows: Int) {
    storage.withLock { $0 }?.rowsSinceSnapshot.withLock { $0[key] = rows }
  }
}

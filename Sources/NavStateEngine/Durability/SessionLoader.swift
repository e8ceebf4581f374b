import NavigationCore
import Synchronization

/// Sessions kept in a database shared by the nodes (`--postgres`), held in memory by one node at
/// a time. Each session belongs to a slot: named by its id's prefix (the name of the node that
/// made it), or, for an id with no prefix, the shard its first character names. A node serves
/// the sessions of the slots it holds a lease on, and takes a slot over (loading its sessions)
/// when its holder's lease has run out.
package protocol SessionLoader: AnyObject, Sendable {
  /// Makes the sessions of `slot` present in the store, claiming its lease if no live node holds
  /// it; refuses (`storeUnavailable`) when another node holds it or the database cannot say.
  /// Called on a request for a session of a slot that ``holds(_:)`` says is not held.
  func load(slot: NodeName) throws(EngineRefusal)
  /// Whether this node holds `slot` now (cheap: called on every request of this mode).
  func holds(_ slot: NodeName) -> Bool
  /// The slot a session made here now goes in: one of this node's shards that it holds, or
  /// nil for the node's own slot (ids that begin with its name).
  func creationSlot() -> NodeName?
}

extension SessionStore {
  /// From now on, ids of any slot are accepted, and a slot not held is loaded on demand.
  /// Called before the store serves any request, as ``attach(_:)`` is.
  package func attach(loader: any SessionLoader) {
    loaderValue = loader
    loaderAttached = true
  }

  package var loader: (any SessionLoader)? { loaderValue }

  package var hasLoader: Bool { loaderAttached }

  /// The key of `id` once its session is present here: with a ``SessionLoader``, the id's slot is
  /// loaded first if this node does not hold it (which may refuse with `storeUnavailable`).
  /// Nil: no session can have this id.
  package func locate(_ id: UnsafeBufferPointer<UInt8>) throws(EngineRefusal) -> SessionID? {
    guard loader != nil else { return key(of: id) }
    guard let (key, slot) = slotKey(of: id) else { return nil }
    if let slot { try load(slot) }
    return key
  }

  /// ``locate(_:)`` in two steps, so that a caller reading the id inside a closure that may not
  /// throw pays for no refusal on the common path: the key of an id of any slot, and the slot to
  /// load first (nil when this node holds it). Nil: no session can have this id.
  package func slotKey(of id: UnsafeBufferPointer<UInt8>) -> (SessionID, NodeName?)? {
    guard let loader, let (key, slot) = slot(of: id) else { return nil }
    return (key, loader.holds(slot) ? nil : slot)
  }

  /// The key of `id` and the slot it belongs to, whether held here or not: the node its prefix
  /// names, or the shard of an id with none. Nil: no session can have this id.
  package func slot(of id: UnsafeBufferPointer<UInt8>) -> (SessionID, NodeName)? {
    // This node's own sessions first, the way ids are read without a loader.
    if let home = configuration.node, let key = home.key(of: id) { return (key, home) }
    if id.count == 22 {
      guard let key = SessionID(bytes: id) else { return nil }
      return (key, NodeName.shard(of: key))
    }
    guard let dot = id.lastIndex(of: UInt8(ascii: ".")), id.count - dot - 1 == 22,
      let key = SessionID(bytes: UnsafeBufferPointer(rebasing: id[(dot + 1)...]))
    else { return nil }
    let name = String(decoding: UnsafeBufferPointer(rebasing: id[..<dot]), as: UTF8.self)
    guard let slot = NodeName(name) else { return nil }
    return (key, slot)
  }

  /// Loads `slot` (see ``SessionLoader/load(slot:)``).
  package func load(_ slot: NodeName) throws(EngineRefusal) {
    try loader?.load(slot: slot)
  }

  /// Lets go of the sessions `belongs` picks, without ending them: their lease was lost or given
  /// back, and another node serves them from the database now. Their streams end (a client
  /// reconnects, through the proxy, to the node that holds them next); nothing is recorded.
  @discardableResult
  package func evict(where belongs: (SessionRecord) -> Bool) -> Int {
    var chosen: [SessionRecord] = []
    forEachSession { if belongs($0) { chosen.append($0) } }
    var evicted = 0
    for record in chosen {
      // At the commit gate: no change of the session is waiting for its commit, so what is let
      // go (memory, coordinators) is what was counted. A creation waiting for its commit does
      // not hold the gate; it finds its record gone and settles its counts itself.
      let gone = record.commitGate.withLock(of: record) {
        record.data.withLock { data -> (streams: [any EventSink], live: Int)? in
          guard !data.ended, registry.remove(record.key) != nil else { return nil }
          // Marked ended so that a request that found the record before cannot change it here.
          data.ended = true
          memory.add(-data.accountedBytes)
          data.accountedBytes = 0
          let streams = data.subscribers.map(\.sink)
          data.subscribers.removeAll()
          return (streams, data.navigation.liveCount)
        }
      }
      guard let gone else { continue }
      evicted += 1
      admission.release(of: record.client)
      registry.coordinatorCount.wrappingAdd(-gone.live, ordering: .relaxed)
      for sink in gone.streams { sink.finish() }
    }
    return evicted
  }
}

import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine

/// With a ``SessionLoader`` (`--postgres`): ids of any slot are accepted, a slot not held is
/// loaded before the request goes on, and sessions can be let go without ending them.
@Suite struct SessionLoaderTests {
  /// Holds the slots it is told to, and records what it was asked to load.
  final class Loader: SessionLoader {
    let held = Mutex<Set<String>>([])
    let asked = Mutex<[String]>([])
    let refuses: Bool
    let creation: NodeName?

    init(holding: Set<String>, refuses: Bool = false, creation: NodeName? = nil) {
      held.withLock { $0 = holding }
      self.refuses = refuses
      self.creation = creation
    }

    func creationSlot() -> NodeName? { creation }

    func holds(_ slot: NodeName) -> Bool { held.withLock { $0.contains(slot.name) } }

    func load(slot: NodeName) throws(EngineRefusal) {
      asked.withLock { $0.append(slot.name) }
      if refuses { throw EngineRefusal.storeUnavailable(reason: "held elsewhere", retryAfter: 1) }
      held.withLock { _ = $0.insert(slot.name) }
    }
  }

  static func store(node: String = "n1") throws -> SessionStore {
    let graph = try BuiltInGraphs.load()[0]
    var configuration = StoreConfiguration()
    configuration.node = NodeName(node)
    return SessionStore(graphs: [graph], defaultGraph: graph.name, configuration: configuration)
  }

  static func locate(_ store: SessionStore, _ id: String) throws(EngineRefusal) -> SessionID? {
    var id = id
    let located = id.withUTF8 { bytes in
      Result { () throws(EngineRefusal) in try store.locate(bytes) }
    }
    return try located.get()
  }

  @Test func withoutALoaderOnlyThisNodesIdsAreRead() throws {
    let store = try Self.store()
    let key = SessionID.random()
    #expect(try Self.locate(store, "n1." + key.description) == key)
    #expect(try Self.locate(store, "n2." + key.description) == nil)
  }

  @Test func aSlotNotHeldIsLoadedFirstAndTheHomeSlotCostsNoLoad() throws {
    let store = try Self.store()
    let loader = Loader(holding: ["n1"])
    store.attach(loader: loader)
    let key = SessionID.random()
    #expect(try Self.locate(store, "n1." + key.description) == key)
    #expect(loader.asked.withLock { $0 }.isEmpty)
    #expect(try Self.locate(store, "n2." + key.description) == key)
    #expect(try Self.locate(store, "n2." + key.description) == key)
    #expect(loader.asked.withLock { $0 } == ["n2"], "loaded once, then held")
  }

  @Test func idsThatNoSessionCanHaveAreNotLoaded() throws {
    let store = try Self.store()
    let loader = Loader(holding: ["n1"])
    store.attach(loader: loader)
    let key = SessionID.random().description
    let badShardID = String(key.dropLast()) + "B"  // its last character holds 4 zero bits
    for bad in [badShardID, "N2." + key, "n2." + key + "A", "n2.", ".\(key)", "n2_x." + key] {
      #expect(try Self.locate(store, bad) == nil, "\(bad)")
    }
    #expect(loader.asked.withLock { $0 }.isEmpty)
  }

  @Test func anIdWithNoNameBelongsToTheShardOfItsFirstCharacter() throws {
    let store = try Self.store()
    let loader = Loader(holding: ["n1", "shard.63"])
    store.attach(loader: loader)
    let inShard5 = SessionID.random(inShard: 5)
    #expect(inShard5.description.first == "F")
    #expect(try Self.locate(store, inShard5.description) == inShard5)
    #expect(loader.asked.withLock { $0 } == ["shard.05"])
    let inShard63 = SessionID.random(inShard: 63)
    #expect(try Self.locate(store, inShard63.description) == inShard63)
    #expect(loader.asked.withLock { $0 } == ["shard.05"], "shard 63 is held: no load")
  }

  @Test func sessionsAreMadeInTheSlotTheLoaderNames() throws {
    let store = try Self.store()
    store.attach(loader: Loader(holding: ["n1", "shard.07"], creation: NodeName.shard(7)))
    let (record, _) = try store.create(graph: nil, root: nil, client: "a", now: .now())
    #expect(record.node === NodeName.shard(7))
    #expect(record.id.utf8.count == 22 && record.id.first == "H", "\(record.id)")
    #expect(record.key.shard == 7)
    let named = try Self.store()
    named.attach(loader: Loader(holding: ["n1"]))
    let (own, _) = try named.create(graph: nil, root: nil, client: "a", now: .now())
    #expect(own.id.hasPrefix("n1."), "no shard named: the node's own slot")
  }

  @Test func aRefusedLoadRefusesTheRequest() throws {
    let store = try Self.store()
    store.attach(loader: Loader(holding: [], refuses: true))
    let key = SessionID.random()
    #expect(throws: EngineRefusal.self) { try Self.locate(store, "n1." + key.description) }
    #expect(throws: EngineRefusal.self) { try Self.locate(store, "n3." + key.description) }
  }

  @Test func evictedSessionsLeaveWithoutEnding() throws {
    let store = try Self.store()
    let (kept, _) = try store.create(graph: nil, root: nil, client: "a", now: .now())
    let (evicted, token) = try store.create(graph: nil, root: nil, client: "b", now: .now())
    let coordinatorsBefore = store.liveCoordinators
    #expect(store.evict { $0 === evicted } == 1)
    #expect(store.liveSessions == 1)
    #expect(store.liveCoordinators == coordinatorsBefore - 1)
    #expect(store.registry[kept.key] != nil)
    #expect(store.registry[evicted.key] == nil)
    // Not ended: no end is remembered for it (another node serves it), and it is not counted
    // as expired.
    var text = token
    #expect(text.withUTF8 { store.endReason(of: evicted.key, token: $0) } == nil)
    #expect(throws: EngineRefusal.self) { try store.authorize(id: evicted.id, token: token) }
    #expect(store.evict { $0 === evicted } == 0, "once")
    #expect(store.expiredSessions == 0)
  }
}

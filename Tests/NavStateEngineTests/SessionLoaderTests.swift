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

    init(holding: Set<String>, refuses: Bool = false) {
      held.withLock { $0 = holding }
      self.refuses = refuses
    }

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
    for bad in [key, "N2." + key, "n2." + key + "A", "n2.", ".\(key)", "n2_x." + key] {
      #expect(try Self.locate(store, bad) == nil, "\(bad)")
    }
    #expect(loader.asked.withLock { $0 }.isEmpty)
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

import NavJSON
import NavigationCore
import Testing

@testable import NavStateAPI

/// A session's encoded state is kept while it is in use and dropped once it idles; either way
/// every answer is the same bytes.
@Suite struct StateCacheTests {
  private func makeStore() throws -> SessionStore {
    let graph = try BuiltInGraphs.load()[0]
    var configuration = StoreConfiguration()
    configuration.stateCacheIdleSeconds = 10
    return SessionStore(graphs: [graph], defaultGraph: graph.name, configuration: configuration)
  }

  /// One call, as the store's handlers make it: the state encoded, then noted.
  private func call(_ record: SessionRecord, _ store: SessionStore) -> [UInt8] {
    record.data.withLock { data in
      let bytes = record.encodedState(of: &data)
      store.noteStateCache(of: record, &data, grew: false)
      return bytes
    }
  }

  private func cachedVersion(_ record: SessionRecord) -> Int? {
    record.data.withLock { $0.cache?.version }
  }

  @Test func aSessionCalledOnceKeepsNoEncodingAndTheNextCallKeepsOne() throws {
    let store = try makeStore()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: .now())
    let fresh = call(record, store)
    #expect(cachedVersion(record) == nil)
    #expect(record.data.withLock { $0.inUse })
    let cached = call(record, store)
    #expect(cachedVersion(record) == 1)
    #expect(cached == fresh)
  }

  @Test func anIdleSessionDropsItsEncodedStateAndAnswersTheSameAfterwards() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    _ = call(record, store)
    let withoutCache = store.memory.usedBytes
    let first = call(record, store)
    let countedWithCache = store.memory.usedBytes
    #expect(countedWithCache > withoutCache)
    #expect(cachedVersion(record) == 1)

    // Not idle long enough: kept.
    store.dropIdleCaches(now: now.adding(seconds: 5))
    #expect(cachedVersion(record) == 1)

    store.dropIdleCaches(now: now.adding(seconds: 11))
    #expect(cachedVersion(record) == nil)
    #expect(record.data.withLock { !$0.inUse })
    // The budget no longer counts what was dropped.
    #expect(store.memory.usedBytes < countedWithCache)

    let again = record.data.withLock { data in record.encodedState(of: &data) }
    #expect(again == first)
    #expect(cachedVersion(record) == nil)
  }

  @Test func aSessionCalledSinceIsLookedAtAgainLater() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    _ = call(record, store)
    _ = call(record, store)
    // A call 8 s later moves its expiry, and so its idle time.
    record.data.withLock { data in
      data.expiresAt = now.adding(seconds: 8 + store.configuration.sessionTTLSeconds)
    }
    store.dropIdleCaches(now: now.adding(seconds: 11))
    #expect(cachedVersion(record) == 1)
    store.dropIdleCaches(now: now.adding(seconds: 19))
    #expect(cachedVersion(record) == nil)
  }
}

/// Whatever the cache reuses, each version's state is what encoding it afresh gives.
@Suite struct StateCacheReuseTests {
  @Test func reusedTailsEqualFreshEncodingsOverAWalk() throws {
    let graph = try BuiltInGraphs.load()[0]
    let store = SessionStore(
      graphs: [graph], defaultGraph: graph.name, configuration: StoreConfiguration())
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: .now())
    record.data.withLock { $0.inUse = true }
    let detail = { (id: Int) in
      Command.push(RouteRequest(route: "detail", params: JSONObject(["id": .int(id)])))
    }
    let walk: [Command] = [
      detail(1), .pop(), detail(2), .pop(), detail(3),
      .present(RouteRequest(route: "settings"), style: .sheet),
      .dismiss(), .pop(), .batch([detail(4), .pop()]), detail(5), .pop(), .pop(.count(1)),
    ]
    for command in walk {
      try record.data.withLock { data throws in
        _ = try? data.navigation.apply(command)
        _ = record.encodedState(of: &data)
        #expect(data.cache?.tail == StateJSON.encodeTail(of: data.navigation), "after \(command)")
      }
    }
  }
}

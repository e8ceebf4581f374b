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

  @Test func anIdleSessionDropsItsEncodedStateAndAnswersTheSameAfterwards() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    let (first, countedWithCache) = record.data.withLock { data in
      let bytes = record.encodedState(of: &data)
      store.noteStateCache(of: record, &data, grew: false)
      return (bytes, store.memory.usedBytes)
    }
    #expect(record.data.withLock { $0.cachedVersion } == 1)

    // Not idle long enough: kept.
    store.dropIdleCaches(now: now.adding(seconds: 5))
    #expect(record.data.withLock { $0.cachedVersion } == 1)

    store.dropIdleCaches(now: now.adding(seconds: 11))
    #expect(record.data.withLock { $0.cachedVersion } == -1)
    #expect(record.data.withLock { $0.cachedTail.isEmpty && $0.cachedHead.isEmpty })
    // The budget no longer counts what was dropped.
    #expect(store.memory.usedBytes < countedWithCache)

    let again = record.data.withLock { data in record.encodedState(of: &data) }
    #expect(again == first)
  }

  @Test func aSessionCalledSinceIsLookedAtAgainLater() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    record.data.withLock { data in
      _ = record.encodedState(of: &data)
      store.noteStateCache(of: record, &data, grew: false)
      // A call 8 s later moves its expiry, and so its idle time.
      data.expiresAt = now.adding(seconds: 8 + store.configuration.sessionTTLSeconds)
    }
    store.dropIdleCaches(now: now.adding(seconds: 11))
    #expect(record.data.withLock { $0.cachedVersion } == 1)
    store.dropIdleCaches(now: now.adding(seconds: 19))
    #expect(record.data.withLock { $0.cachedVersion } == -1)
  }
}

/// Whatever the cache reuses, each version's state is what encoding it afresh gives.
@Suite struct StateCacheReuseTests {
  @Test func reusedTailsEqualFreshEncodingsOverAWalk() throws {
    let graph = try BuiltInGraphs.load()[0]
    let store = SessionStore(
      graphs: [graph], defaultGraph: graph.name, configuration: StoreConfiguration())
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: .now())
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
        #expect(data.cachedTail == StateJSON.encodeTail(of: data.navigation), "after \(command)")
      }
    }
  }
}

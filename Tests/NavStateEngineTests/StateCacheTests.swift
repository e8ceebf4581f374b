import NavJSON
import NavStateWire
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine

/// A session's encoded state is kept while it is in use and dropped once it idles; either way
/// every answer is the same bytes.
@Suite struct StateCacheTests {
  private func makeStore() throws -> SessionStore {
    let graph = try BuiltInGraphs.load()[0]
    var configuration = StoreConfiguration()
    configuration.stateCacheIdleSeconds = 10
    return SessionStore(graphs: [graph], defaultGraph: graph.name, configuration: configuration)
  }

  /// One call at `time`, as the service's handlers make it: touched, the state encoded, noted.
  private func call(_ record: SessionRecord, _ store: SessionStore, at time: Timestamp) -> [UInt8] {
    record.data.withLock { data in
      store.touch(&data, now: time)
      let bytes = record.encodedState(of: &data, viewer: .owner, watchers: store.shareWatchers)
        .bytes
      store.noteStateCache(of: record, &data, grew: false)
      return bytes
    }
  }

  private func cachedVersion(_ record: SessionRecord) -> Int? {
    record.data.withLock { $0.cache?.version }
  }

  @Test func aSessionCalledOnceKeepsNoEncodingAndTheNextCallKeepsOne() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    // The creation is not a call: the first call right after it keeps nothing.
    let fresh = call(record, store, at: now.adding(seconds: 0.1))
    #expect(cachedVersion(record) == nil)
    // At the same time, so that `expiresAt` is the same too.
    let cached = call(record, store, at: now.adding(seconds: 0.1))
    #expect(cachedVersion(record) == 1)
    #expect(cached == fresh)
  }

  @Test func callsFurtherApartThanTheIdleTimeKeepNothing() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    _ = call(record, store, at: now)
    _ = call(record, store, at: now.adding(seconds: 11))
    #expect(cachedVersion(record) == nil)
    _ = call(record, store, at: now.adding(seconds: 12))
    #expect(cachedVersion(record) == 1)
  }

  @Test func anIdleSessionDropsItsEncodedStateAndAnswersTheSameAfterwards() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    _ = call(record, store, at: now)
    let withoutCache = store.memory.usedBytes
    let first = call(record, store, at: now)
    let countedWithCache = store.memory.usedBytes
    #expect(countedWithCache > withoutCache)
    #expect(cachedVersion(record) == 1)

    // Not idle long enough: kept.
    store.dropIdleCaches(now: now.adding(seconds: 5))
    #expect(cachedVersion(record) == 1)

    store.dropIdleCaches(now: now.adding(seconds: 11))
    #expect(cachedVersion(record) == nil)
    // The budget no longer counts what was dropped.
    #expect(store.memory.usedBytes < countedWithCache)

    // A call after the idle time answers the same, and keeps nothing.
    let again = call(record, store, at: now.adding(seconds: 12))
    #expect(again.count == first.count)
    #expect(cachedVersion(record) == nil)
  }

  @Test func aSessionCalledSinceIsLookedAtAgainLater() throws {
    let store = try makeStore()
    let now = Timestamp.now()
    let (record, _) = try store.create(graph: nil, root: nil, client: "test", now: now)
    _ = call(record, store, at: now)
    _ = call(record, store, at: now)
    // A call 8 s later moves the time it may idle from.
    _ = call(record, store, at: now.adding(seconds: 8))
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
    // Pushes and pops (tails reused whole), modals, a replaced root, tabs whose children start
    // under older siblings (ids out of tree order), deep links that keep a prefix: every tail
    // copies some identities from the one before.
    let walk: [Command] = [
      detail(1), .pop(), detail(2), .pop(), detail(3),
      .present(RouteRequest(route: "settings"), style: .sheet),
      .dismiss(), .pop(), .batch([detail(4), .pop()]), detail(5), .pop(), .pop(.count(1)),
      detail(6), detail(7),
      .replace(RouteRequest(route: "detail", params: JSONObject(["id": .int(8)]))),
      .deepLink("myapp://tabs"), .selectTab(.index(1)), detail(9), .selectTab(.index(0)),
      detail(10), .selectTab(.route("search")), detail(11),
      .present(RouteRequest(route: "settings"), style: .sheet),
      .deepLink("myapp://tabs/search?query=swift"), .deepLink("myapp://master/detail/3"),
      .batch([detail(12), detail(13), .pop(.toRoot)]),
    ]
    var copiedIdentities = 0
    for command in walk {
      try record.data.withLock { data throws in
        let before = data.cache?.tail.identities.map(\.id) ?? []
        _ = try? data.navigation.apply(command)
        _ = record.encodedState(of: &data, viewer: .owner, watchers: store.shareWatchers)
        let fresh = StateJSON.encodeTail(of: data.navigation)
        let kept = data.cache.map { String(decoding: $0.tail.bytes, as: UTF8.self) }
        #expect(kept == String(decoding: fresh.bytes, as: UTF8.self), "after \(command)")
        #expect(data.cache?.tail.identities.map(\.id) == fresh.identities.map(\.id))
        copiedIdentities += Set(before).intersection(fresh.identities.map(\.id)).count
      }
    }
    #expect(copiedIdentities > 20)
  }
}

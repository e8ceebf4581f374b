import NavJSON
import NavigationCore
import Synchronization
import Testing

@testable import NavStateEngine
@testable import NavStatePersistence

/// A session's shares and where it was forked from are kept in its archive (snapshots and
/// journal creations) and come back exactly; archives without them read as before.
@Suite struct SharingArchiveTests {
  private func store(historyVersions: Int = 1000) throws -> SessionStore {
    var configuration = StoreConfiguration()
    configuration.historyVersions = historyVersions
    return SessionStore(
      graphs: try BuiltInGraphs.load(), defaultGraph: "demo", configuration: configuration)
  }

  private func encode(_ record: SessionRecord) -> [UInt8] {
    record.data.withLock { SessionArchive.encode(record, $0) }
  }

  private func decode(_ store: SessionStore, _ bytes: [UInt8]) throws -> SessionRecord {
    try SessionArchive.decode(
      bytes, graph: { store.catalog.newest($0) },
      historyGraph: { store.catalog.graph($0, version: $1) }, configuration: store.configuration)
  }

  private func share(
    _ store: SessionStore, _ record: SessionRecord, _ mode: ShareMode, _ label: String
  ) throws -> SessionShare {
    try store.createShare(
      ShareRequest(mode: mode, label: label, ttlSeconds: nil, wantsCode: false), on: record,
      by: .sessionHolder, precondition: nil
    ).share
  }

  private func push(_ store: SessionStore, _ record: SessionRecord, _ id: Int) throws {
    _ = try store.apply(
      .push(RouteRequest(route: "detail", params: ["id": .int(id)])), to: record,
      precondition: nil, minimal: true)
  }

  /// Everything of a state an archive keeps, to compare.
  private func expectSame(
    _ back: NavigationState, _ original: NavigationState,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    #expect(back.shares == original.shares, sourceLocation: sourceLocation)
    #expect(back.forkedFrom == original.forkedFrom, sourceLocation: sourceLocation)
    #expect(back.version == original.version, sourceLocation: sourceLocation)
    #expect(back.lastSeq == original.lastSeq, sourceLocation: sourceLocation)
    #expect(back.lastIssuedID == original.lastIssuedID, sourceLocation: sourceLocation)
    #expect(back.coordinators == original.coordinators, sourceLocation: sourceLocation)
    #expect(back.context == original.context, sourceLocation: sourceLocation)
  }

  @Test("a fork with shares comes back with its shares, token digests and origin")
  func sharesAndOrigin() throws {
    let store = try store()
    let source = try store.createSession(graph: nil, root: nil, client: "test").record
    try push(store, source, 3)
    let forked = try store.fork(source, at: nil, by: .sessionHolder, client: "test").record
    let follow = try share(store, forked, .follow, "Support: \"Ana\" ☃")
    let drive = try share(store, forked, .drive, "iPad")
    let original = forked.data.withLock { $0.navigation }
    #expect(original.shares == [follow, drive])
    #expect(original.forkedFrom == ForkOrigin(session: source.id, version: 2))
    #expect(follow.credential.count == 32)

    let back = try decode(store, encode(forked))
    #expect(back.id == forked.id)
    let navigation = back.data.withLock { $0.navigation }
    expectSame(navigation, original)
    // A share token's digest finds its share after the round trip.
    #expect(navigation.share(credential: drive.credential, at: drive.createdAt) == drive)
    // The history comes back too: the fork, then the two shares.
    let entries = back.data.withLock { $0.history.entries(after: 0, count: 10, limit: 1000) }
    #expect(entries.map(\.version) == [1, 2, 3])
    #expect(entries.first?.change == .fork(session: source.id, version: 2))
    #expect(entries.last?.change == .command(.createShare(drive)))
  }

  @Test("shares alone, or an origin alone, come back")
  func eitherAlone() throws {
    let store = try store()
    let shared = try store.createSession(graph: nil, root: nil, client: "test").record
    _ = try share(store, shared, .follow, "a")
    let sharedBack = try decode(store, encode(shared)).data.withLock { $0.navigation }
    expectSame(sharedBack, shared.data.withLock { $0.navigation })
    #expect(sharedBack.shares.count == 1)
    #expect(sharedBack.forkedFrom == nil)

    let forked = try store.fork(shared, at: 1, by: .backend, client: "test").record
    let forkedBack = try decode(store, encode(forked)).data.withLock { $0.navigation }
    expectSame(forkedBack, forked.data.withLock { $0.navigation })
    #expect(forkedBack.shares.isEmpty)
    #expect(forkedBack.forkedFrom == ForkOrigin(session: shared.id, version: 1))
  }

  @Test("a session that never shared ends its archive with its history, as archives did before")
  func withoutSharing() throws {
    let store = try store()
    let record = try store.createSession(graph: nil, root: nil, client: "test").record
    try push(store, record, 1)
    let bytes = encode(record)
    var history: [UInt8] = []
    record.data.withLock { SessionArchive.appendHistory($0.history, to: &history) }
    #expect(bytes.count > history.count)
    #expect(Array(bytes.suffix(history.count)) == history)
    let back = try decode(store, bytes).data.withLock { $0.navigation }
    expectSame(back, record.data.withLock { $0.navigation })
    #expect(back.shares.isEmpty && back.forkedFrom == nil)
    // A share made and revoked leaves nothing to keep either.
    _ = try share(store, record, .drive, "x")
    let id = record.data.withLock { $0.navigation.shares[0].id }
    _ = try store.revokeShare(
      id, of: record, by: .sessionHolder, precondition: nil, idempotency: nil)
    history = []
    record.data.withLock { SessionArchive.appendHistory($0.history, to: &history) }
    #expect(Array(encode(record).suffix(history.count)) == history)
  }

  @Test("an archive written before shares (no sharing block) still reads, with none")
  func oldFormat() throws {
    let store = try store()
    let source = try store.createSession(graph: nil, root: nil, client: "test").record
    let forked = try store.fork(source, at: nil, by: .sessionHolder, client: "test").record
    _ = try share(store, forked, .follow, "a")
    let bytes = encode(forked)
    var sharing: [UInt8] = []
    let original = forked.data.withLock { data in
      SessionArchive.appendSharing(data.navigation, to: &sharing)
      return data.navigation
    }
    #expect(Array(bytes.suffix(sharing.count)) == sharing)
    // Cut the block off: what a server from before shares wrote for this tree.
    let old = Array(bytes.dropLast(sharing.count))
    let back = try decode(store, old).data.withLock { $0.navigation }
    #expect(back.shares.isEmpty)
    #expect(back.forkedFrom == nil)
    #expect(back.coordinators == original.coordinators)
    #expect(back.version == original.version)
  }

  @Test("bytes after the sharing block, or a damaged one, are refused")
  func damage() throws {
    let store = try store()
    let record = try store.createSession(graph: nil, root: nil, client: "test").record
    _ = try share(store, record, .drive, "a")
    let bytes = encode(record)
    #expect(throws: SessionArchive.Damage.self) { try decode(store, bytes + [0]) }
    // The origin flag (the last byte: this session is no fork) set to neither 0 nor 1.
    #expect(bytes.last == 0)
    var flag = bytes
    flag[flag.count - 1] = 7
    #expect(throws: SessionArchive.Damage.self) { try decode(store, flag) }
    // Cut inside the share.
    #expect(throws: SessionArchive.Damage.self) { try decode(store, Array(bytes.dropLast(5))) }
  }

  @Test("a history whose kept base state has shares and an origin reads back with them")
  func historyBase() throws {
    // 10 versions shown: past 10 + 64 the oldest go, and a checkpoint becomes the base.
    let store = try store(historyVersions: 10)
    let source = try store.createSession(graph: nil, root: nil, client: "test").record
    let forked = try store.fork(source, at: nil, by: .sessionHolder, client: "test").record
    let follow = try share(store, forked, .follow, "Support")
    for id in 0..<100 { try push(store, forked, id) }
    let (base, newest, oldest) = try forked.data.withLock { data in
      (
        try #require(data.history.base), data.navigation.version,
        data.history.oldest(limit: 10)
      )
    }
    #expect(newest == 102)
    #expect(base.version > 1, "the oldest versions went")
    #expect(base.shares == [follow])
    #expect(base.forkedFrom == ForkOrigin(session: source.id, version: 1))

    let back = try decode(store, encode(forked))
    try back.data.withLock { data in
      let restored = try #require(data.history.base)
      expectSame(restored, base)
      #expect(data.history.oldest(limit: 10) == oldest)
      #expect(data.history.newest == newest)
      // Every shown version replays from it, with its shares.
      for version in oldest...newest {
        let (state, _) = try SessionStore.kept(
          version,
          of: SessionStore.Past(
            history: data.history, navigation: data.navigation, updatedAt: data.updatedAt,
            expiresAt: data.expiresAt),
          catalog: store.catalog, configuration: store.configuration)
        #expect(state.version == version)
        #expect(state.shares == [follow], "version \(version)")
      }
    }
  }

  @Test("a fork's history keeps its version 1 state, origin and all")
  func forkHistoryBase() throws {
    let store = try store()
    let source = try store.createSession(graph: nil, root: nil, client: "test").record
    try push(store, source, 5)
    let forked = try store.fork(source, at: 2, by: .sessionHolder, client: "test").record
    let base = try forked.data.withLock { try #require($0.history.base) }
    #expect(base.version == 1)
    #expect(base.forkedFrom == ForkOrigin(session: source.id, version: 2))
    let back = try decode(store, encode(forked))
    let restored = try back.data.withLock { try #require($0.history.base) }
    expectSame(restored, base)
  }
}

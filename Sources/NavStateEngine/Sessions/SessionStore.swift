import NavJSON
public import NavStateWire
public import NavigationCore
package import Synchronization

/// Every live session, split into shards so that requests on different sessions do not contend
/// on one lock.
public final class SessionStore: Sendable {
  private final class Shard: Sendable {
    package let sessions = Mutex<[SessionID: SessionRecord]>([:])
  }

  public let configuration: StoreConfiguration
  /// Every loaded version of every graph.
  public let catalog: GraphCatalog
  public let defaultGraph: String
  private let shards: [Shard]
  private let sessionCount = Atomic<Int>(0)
  private let coordinatorCount = Atomic<Int>(0)
  private let expiredCount = Atomic<Int>(0)
  private let streamCount = Atomic<Int>(0)
  private let deliveryCount = Atomic<Int>(0)
  private let lastSubscriberID = Atomic<Int>(0)
  /// Live sessions per client address.
  private let clientSessions = Mutex(ClientShares())
  /// Open event streams per client address.
  private let clientStreams = Mutex(ClientShares())
  /// Sessions that ended lately, for ``endReason(of:headers:)``.
  private let endedSessions: Mutex<EndedSessions>
  /// Session ids by the time they expire at, as far as known (see ``expireIdle(now:)``).
  private let expiries = Mutex(DeadlineQueue<SessionID>())
  /// Session ids by the time their encoded state may be dropped, as far as known.
  private let cacheDrops = Mutex(DeadlineQueue<SessionID>())
  /// Open event streams by the time their next heartbeat is due.
  private let heartbeats = Mutex(DeadlineQueue<any EventSink>())
  public let memory: MemoryBudget
  /// What navigation did, for /metrics.
  public let counters = NavigationCounters()
  /// Where accepted changes are kept before they are answered (`--data-dir`); nil: nowhere.
  private let storageSlot = Mutex<(any SessionStorage)?>(nil)
  /// Held across a graph load's check, save and catalog entry, so that two loads of one version
  /// (two PUTs, a PUT and SIGHUP) cannot both pass the check: what is answered, served and saved
  /// is one version's bytes.
  package let graphLoads = Mutex(())

  package var storage: (any SessionStorage)? { storageSlot.withLock { $0 } }

  /// From now on, every creation, change and end is kept in `storage` before it is answered.
  package func attach(_ storage: any SessionStorage) {
    storageSlot.withLock { $0 = storage }
  }

  /// A store of `graphs` (each one version; their JSON is not kept, so a data directory cannot
  /// save them: for tests and tools).
  public convenience init(
    graphs: [RouteGraph], defaultGraph: String, configuration: StoreConfiguration
  ) {
    self.init(
      catalog: GraphCatalog(graphs.map { GraphCatalog.Version(graph: $0, source: []) }),
      defaultGraph: defaultGraph, configuration: configuration)
  }

  public init(catalog: GraphCatalog, defaultGraph: String, configuration: StoreConfiguration) {
    self.configuration = configuration
    self.memory = MemoryBudget(
      limit: configuration.maxMemoryBytes,
      headroom: configuration.eventBufferBytes + 2 * configuration.maxRequestBytes + 64 * 1024)
    self.catalog = catalog
    self.defaultGraph = defaultGraph
    self.shards = (0..<64).map { _ in Shard() }
    self.endedSessions = Mutex(
      EndedSessions(keepSeconds: configuration.endedSessionMemorySeconds, capacity: 100_000))
  }

  public var liveSessions: Int { sessionCount.load(ordering: .relaxed) }
  public var liveCoordinators: Int { coordinatorCount.load(ordering: .relaxed) }
  public var expiredSessions: Int { expiredCount.load(ordering: .relaxed) }
  /// Event streams open now, over all sessions.
  public var openStreams: Int { streamCount.load(ordering: .relaxed) }
  /// Events written to streams since start.
  public var eventsDelivered: Int { deliveryCount.load(ordering: .relaxed) }

  private func shard(for id: SessionID) -> Shard {
    // The id is random: its own bits spread the sessions evenly.
    shards[Int(id.randomBits % UInt64(shards.count))]
  }

  /// Opens a session; returns it with its token (the only time the token is shown).
  package func create(
    graph name: String?, root: RouteRequest?, context: SessionContext = SessionContext(),
    client: String, now: Timestamp
  ) throws(EngineRefusal) -> (SessionRecord, token: String) {
    let graphName = name ?? defaultGraph
    let generation = catalog.generation
    guard let graph = catalog.newest(graphName) else {
      throw EngineRefusal.unknownGraph(graphName)
    }
    let (navigation, events): (NavigationState, [NavigationEvent])
    do {
      (navigation, events) = try NavigationState.start(
        graph: graph, root: root, context: context, limits: configuration.limits)
    } catch {
      throw EngineRefusal.navigation(error)
    }
    guard memory.hasRoom() else { throw EngineRefusal.memoryExhausted }
    try reservePlace(for: client)
    var data = SessionRecord.Data(
      navigation: navigation, updatedAt: now,
      expiresAt: now.adding(seconds: configuration.sessionTTLSeconds),
      log: EventLog(
        capacity: configuration.eventBufferSize, maxBytes: configuration.eventBufferBytes))
    data.record(events)
    data.catalogGeneration = generation
    data.routeCounts = catalog.counts(for: graph)
    data.accountedBytes = MemoryFootprint.session(data)
    memory.add(data.accountedBytes)
    let token = SecureRandom.token()
    while true {
      let record = SessionRecord(
        key: SessionID.random(), node: configuration.node, token: token, createdAt: now,
        client: client, data: data)
      let inserted = shard(for: record.key).sessions.withLock { sessions in
        guard sessions[record.key] == nil else { return false }
        sessions[record.key] = record
        return true
      }
      if inserted {
        // Journaled before anyone learns the id, so no change to it can come first.
        // No lock is held here: a store that confirms later is waited for at once.
        if let storage, !storage.recordCreation(of: record, data).confirmed() {
          shard(for: record.key).sessions.withLock { _ = $0.removeValue(forKey: record.key) }
          sessionCount.wrappingSubtract(1, ordering: .relaxed)
          releasePlace(of: client)
          memory.add(-data.accountedBytes)
          throw EngineRefusal.journalUnavailable
        }
        coordinatorCount.wrappingAdd(navigation.liveCount, ordering: .relaxed)
        data.routeCounts?.count(events)
        scheduleExpiry(of: record, at: data.expiresAt)
        return (record, token)
      }
    }
  }

  /// Takes in a session read back from a data directory, as it was: its place in the counts, the
  /// memory budget and the expiry queue. The limits do not apply (these sessions were admitted
  /// when they were made); one already expired ends at the next expiry tick, with its events.
  package func restore(_ record: SessionRecord) {
    let (accounted, expiresAt, live) = record.data.withLock { data in
      data.routeCounts = catalog.counts(for: data.navigation.graph)
      return (data.accountedBytes, data.expiresAt, data.navigation.liveCount)
    }
    shard(for: record.key).sessions.withLock { $0[record.key] = record }
    sessionCount.wrappingAdd(1, ordering: .relaxed)
    coordinatorCount.wrappingAdd(live, ordering: .relaxed)
    clientSessions.withLock { $0.add(for: record.client) }
    memory.add(accounted)
    scheduleExpiry(of: record, at: expiresAt)
  }

  /// Calls `body` with every session held, shard by shard (not under the shard's lock).
  package func forEachSession(_ body: (SessionRecord) -> Void) {
    for shard in shards {
      let records = shard.sessions.withLock { Array($0.values) }
      for record in records { body(record) }
    }
  }

  /// Takes a place for one more session, in the server and for `client`, or refuses: 503 when
  /// the server is full, 429 when this client holds its share. Places are taken first, so
  /// concurrent creations cannot overshoot either limit.
  private func reservePlace(for client: String) throws(EngineRefusal) {
    let reserved = sessionCount.wrappingAdd(1, ordering: .relaxed).newValue
    guard reserved <= configuration.maxSessions else {
      sessionCount.wrappingSubtract(1, ordering: .relaxed)
      throw EngineRefusal.tooManySessions(limit: configuration.maxSessions)
    }
    let perClient = configuration.maxSessionsPerClient
    let taken = clientSessions.withLock { $0.take(for: client, cap: perClient) }
    guard taken else {
      sessionCount.wrappingSubtract(1, ordering: .relaxed)
      throw EngineRefusal.tooManySessionsForClient(cap: perClient)
    }
  }

  private func releasePlace(of client: String) {
    clientSessions.withLock { $0.giveBack(for: client) }
  }

  /// Brings the memory account of a session up to date after a change.
  package func reaccount(_ data: inout SessionRecord.Data) {
    let footprint = MemoryFootprint.session(data)
    memory.add(footprint - data.accountedBytes)
    data.accountedBytes = footprint
  }

  /// The key an id names on this node (nil: no session of this node can have it).
  package func key(of id: UnsafeBufferPointer<UInt8>) -> SessionID? {
    configuration.node.map { $0.key(of: id) } ?? SessionID(bytes: id)
  }

  /// The session `key` and who calls it: the holder of its token, or the backend with one of its
  /// keys. `token` is the bearer token's bytes (nil when the call carried none). A wrong token
  /// and an unknown session are refused alike, in the same time.
  package func authorize(key: SessionID?, token: UnsafeBufferPointer<UInt8>?)
    throws(EngineRefusal) -> SessionRecord
  {
    try authorizeCaller(key: key, token: token).record
  }

  /// ``authorize(key:token:)``, saying who called.
  package func authorizeCaller(key: SessionID?, token: UnsafeBufferPointer<UInt8>?)
    throws(EngineRefusal) -> (record: SessionRecord, caller: Caller)
  {
    guard let token else { throw EngineRefusal.missingToken }
    // Decided from the token's shape alone, so it says nothing about sessions. A backend key
    // never has a session token's shape (see BackendKeys), so a session's call pays nothing.
    guard SecureRandom.isWellFormedToken(token) else {
      guard let keys = configuration.backendKeys, keys.matches(token) else {
        throw EngineRefusal.malformedToken
      }
      guard let record = key.flatMap({ key in shard(for: key).sessions.withLock { $0[key] } })
      else { throw EngineRefusal.sessionNotFound }
      return (record, .backend)
    }
    let record = key.flatMap { key in shard(for: key).sessions.withLock { $0[key] } }
    // Compared even when the id is unknown, so both failures take the same time.
    guard let record else {
      _ = Self.decoy.matches(token)
      throw EngineRefusal.sessionNotFound
    }
    guard record.token.matches(token) else { throw EngineRefusal.sessionNotFound }
    return (record, .sessionHolder)
  }

  /// Refuses a call that only the backend may make (`what` names it) unless `token` is one of
  /// its keys.
  package func requireBackend(token: UnsafeBufferPointer<UInt8>?, for what: String)
    throws(EngineRefusal)
  {
    guard let token else { throw EngineRefusal.missingToken }
    guard configuration.backendKeys?.matches(token) == true else {
      throw EngineRefusal.backendOnly(what: what)
    }
  }

  /// Who a creation comes from: the backend when `token` is one of its keys, else anyone. With
  /// `--session-creation backend`, anyone else is refused.
  package func creator(token: UnsafeBufferPointer<UInt8>?) throws(EngineRefusal) -> Caller? {
    let isBackend =
      token.map { token in configuration.backendKeys?.matches(token) ?? false } ?? false
    if isBackend { return .backend }
    guard configuration.sessionCreation == .anyone else {
      throw EngineRefusal.backendKeyRequired
    }
    return nil
  }

  /// ``authorize(key:token:)`` for an id and a token as text.
  package func authorize(id: String, token: String) throws(EngineRefusal) -> SessionRecord {
    var id = id
    var token = token
    let sessionKey = id.withUTF8 { self.key(of: $0) }
    let result = token.withUTF8 { bytes in
      Result { () throws(EngineRefusal) in try authorize(key: sessionKey, token: bytes) }
    }
    return try result.get()
  }

  /// Why the session `key` ended, if it ended lately and `token` is its token; nil otherwise
  /// (the caller then answers as for any unknown session).
  package func endReason(of key: SessionID?, token: UnsafeBufferPointer<UInt8>?)
    -> SessionEndReason?
  {
    guard let key, let token else { return nil }
    let now = Timestamp.now().milliseconds
    guard let ended = endedSessions.withLock({ $0.entry(of: key, now: now) }) else { return nil }
    guard SecureRandom.isWellFormedToken(token), ended.token.matches(token) else { return nil }
    return ended.reason
  }

  /// What a token for an unknown session is compared with.
  private static let decoy = SessionToken(issuing: SecureRandom.token())

  /// Counts the coordinators an operation started and stopped, and for /metrics the routes it
  /// started and the redirects it made.
  package func account(_ events: [NavigationEvent], counts: RouteCounts?) {
    var delta = 0
    var counted = false
    for event in events {
      switch event.kind {
      case .started:
        delta += 1
        counted = true
      case .stopped: delta -= 1
      case .navigationRedirected: counted = true
      default: break
      }
    }
    if delta != 0 { coordinatorCount.wrappingAdd(delta, ordering: .relaxed) }
    if counted { counts?.count(events) }
  }

  /// Ends a session: every coordinator stops, then `session.ended`, and its streams finish.
  /// `condition` is checked under the session's lock first (If-Match, or still idle for expiry);
  /// returning false leaves the session alone. Returns the last events (none if it did not end).
  @discardableResult
  package func end(
    _ record: SessionRecord, reason: SessionEndReason,
    if condition: (SessionRecord.Data) throws(EngineRefusal) -> Bool = { _ in true }
  ) throws(EngineRefusal) -> [NavigationEvent] {
    let storage = self.storage
    guard storage?.confirmsLater == true else {
      return try end(record, reason: reason, storage: storage, if: condition)
    }
    return try record.commitGate.withLock { _ throws(EngineRefusal) in
      try end(record, reason: reason, storage: storage, if: condition)
    }
  }

  private func end(
    _ record: SessionRecord, reason: SessionEndReason, storage: (any SessionStorage)?,
    if condition: (SessionRecord.Data) throws(EngineRefusal) -> Bool
  ) throws(EngineRefusal) -> [NavigationEvent] {
    let ended = try record.data.withLock {
      (data) throws(EngineRefusal) -> (events: [NavigationEvent], streams: [any EventSink])? in
      guard !data.ended, try condition(data) else { return nil }
      // A deletion the store cannot keep is refused like any change: answered 204, it would
      // come back after a restart. An expiry stands (a restart finds it expired again). Waited
      // for under the lock: an end is rare, and nothing may follow it.
      if let storage, !storage.recordEnd(of: record).confirmed(), reason == .deleted {
        throw EngineRefusal.journalUnavailable
      }
      let removed = shard(for: record.key).sessions.withLock { $0.removeValue(forKey: record.key) }
      guard removed != nil else { return nil }
      data.ended = true
      let events = data.navigation.end(reason: reason)
      delivered(data.record(events))
      memory.add(-data.accountedBytes)
      data.accountedBytes = 0
      let streams = data.subscribers.map(\.sink)
      data.subscribers.removeAll()
      return (events, streams)
    }
    guard let ended else { return [] }
    sessionCount.wrappingSubtract(1, ordering: .relaxed)
    releasePlace(of: record.client)
    let now = Timestamp.now().milliseconds
    endedSessions.withLock {
      $0.remember(record.key, token: record.token, reason: reason, now: now)
    }
    account(ended.events, counts: nil)
    if reason == .expired { expiredCount.wrappingAdd(1, ordering: .relaxed) }
    // The streams end last, after `session.ended` and after the counts: a client that sees its
    // stream end and then reads /metrics finds the session gone from them.
    for sink in ended.streams { sink.finish() }
    return ended.events
  }

  /// Ends every session idle past its expiry time. Only the sessions whose queued time has come
  /// are looked at: one touched since it was queued goes back in at its new time.
  public func expireIdle(now: Timestamp) {
    let due = expiries.withLock { $0.popDue(now: now.milliseconds) }
    for id in due {
      // Deleted since it was queued: nothing to do.
      guard let record = shard(for: id).sessions.withLock({ $0[id] }) else { continue }
      let ended = (try? end(record, reason: .expired) { $0.expiresAt <= now }) ?? []
      guard ended.isEmpty else { continue }
      let later = record.data.withLock { $0.ended ? nil : $0.expiresAt }
      if let later { expiries.withLock { $0.push(id, at: later.milliseconds) } }
    }
  }

  /// A call on the session: it lives another TTL from now, and it is in use (what it encodes is
  /// kept) if it was called before within `stateCacheIdleSeconds`.
  package func touch(_ data: inout SessionRecord.Data, now: Timestamp = .now()) {
    let previousCall = lastCall(of: data)
    data.inUse =
      data.called
      && now.milliseconds - previousCall.milliseconds
        < Int64(configuration.stateCacheIdleSeconds * 1000)
    data.called = true
    data.expiresAt = now.adding(seconds: configuration.sessionTTLSeconds)
  }

  /// After a call that may have grown the session (`grew`: its tree or log) or built its state
  /// cache: counts it again in the memory budget if so, and queues a new cache to be dropped when
  /// the session idles. Only sessions that hold a cache are queued.
  package func noteStateCache(
    of record: SessionRecord, _ data: inout SessionRecord.Data, grew: Bool
  ) {
    if grew || data.cacheUncounted {
      data.cacheUncounted = false
      reaccount(&data)
    }
    guard data.cache != nil, !data.cacheDropQueued, !data.ended else { return }
    data.cacheDropQueued = true
    let due = lastCall(of: data).adding(seconds: configuration.stateCacheIdleSeconds)
    cacheDrops.withLock { $0.push(record.key, at: due.milliseconds) }
  }

  /// Drops the encoded state of sessions that have had no call for `stateCacheIdleSeconds` (they
  /// are no longer in use); one called since its entry was queued goes back in at its new time.
  public func dropIdleCaches(now: Timestamp) {
    let due = cacheDrops.withLock { $0.popDue(now: now.milliseconds) }
    for id in due {
      guard let record = shard(for: id).sessions.withLock({ $0[id] }) else { continue }
      let later = record.data.withLock { data -> Timestamp? in
        guard !data.ended, data.cacheDropQueued else { return nil }
        let idleSince = lastCall(of: data)
        let dropAt = idleSince.adding(seconds: configuration.stateCacheIdleSeconds)
        if dropAt > now { return dropAt }
        data.dropCache()
        data.cacheDropQueued = false
        reaccount(&data)
        return nil
      }
      if let later { cacheDrops.withLock { $0.push(id, at: later.milliseconds) } }
    }
  }

  /// When the session was last called (every call moves its expiry one TTL past it).
  private func lastCall(of data: SessionRecord.Data) -> Timestamp {
    data.expiresAt.adding(seconds: -configuration.sessionTTLSeconds)
  }

  /// Queues a new session for expiry.
  private func scheduleExpiry(of record: SessionRecord, at time: Timestamp) {
    expiries.withLock { $0.push(record.key, at: time.milliseconds) }
  }

  package func delivered(_ count: Int) {
    if count > 0 { deliveryCount.wrappingAdd(count, ordering: .relaxed) }
  }

  /// Registers a stream that follows `record` for `client`; it is forgotten when the server
  /// closes it. `prepare` gives the stream's first bytes and whether they hold an event (else
  /// the reconnection delay waits for the first event, see ``EventSubscriber``). `makeSink`
  /// makes the stream (the HTTP layer's) with the most it may buffer and what to do when it
  /// closes.
  package func subscribe<Sink: EventSink>(
    _ record: SessionRecord, client: String,
    prepare: (inout SessionRecord.Data) throws(EngineRefusal) -> (bytes: [UInt8], hasEvent: Bool),
    makeSink: (_ maxBufferedBytes: Int, _ onClose: @escaping @Sendable () -> Void) -> Sink
  )
    throws(EngineRefusal) -> Sink
  {
    try reserveStream(for: client)
    do {
      return try subscribe(record, prepare: prepare, makeSink: makeSink) { [self] in
        releaseStream(of: client)
      }
    } catch {
      releaseStream(of: client)
      throw error
    }
  }

  private func reserveStream(for client: String) throws(EngineRefusal) {
    let cap = configuration.maxStreamsPerClient
    guard cap > 0 else { return }
    let taken = clientStreams.withLock { $0.take(for: client, cap: cap) }
    guard taken else { throw EngineRefusal.tooManyStreamsForClient(cap: cap) }
  }

  private func releaseStream(of client: String) {
    guard configuration.maxStreamsPerClient > 0 else { return }
    clientStreams.withLock { $0.giveBack(for: client) }
  }

  private func subscribe<Sink: EventSink>(
    _ record: SessionRecord,
    prepare: (inout SessionRecord.Data) throws(EngineRefusal) -> (bytes: [UInt8], hasEvent: Bool),
    makeSink: (Int, @escaping @Sendable () -> Void) -> Sink,
    onClose: @escaping @Sendable () -> Void
  )
    throws(EngineRefusal) -> Sink
  {
    // A change waiting for its store holds the session's commit gate: a stream opens once
    // that change is sent to streams, so it never sees in the log what it is then sent again.
    guard storage?.confirmsLater == true else {
      return try subscribeNow(record, prepare: prepare, makeSink: makeSink, onClose: onClose)
    }
    return try record.commitGate.withLock { _ throws(EngineRefusal) in
      try subscribeNow(record, prepare: prepare, makeSink: makeSink, onClose: onClose)
    }
  }

  private func subscribeNow<Sink: EventSink>(
    _ record: SessionRecord,
    prepare: (inout SessionRecord.Data) throws(EngineRefusal) -> (bytes: [UInt8], hasEvent: Bool),
    makeSink: (Int, @escaping @Sendable () -> Void) -> Sink,
    onClose: @escaping @Sendable () -> Void
  )
    throws(EngineRefusal) -> Sink
  {
    let id = lastSubscriberID.wrappingAdd(1, ordering: .relaxed).newValue
    // The first message (a reset holds the whole state) may be large: the stream's cap, and its
    // share of the memory budget, are that message plus what a slow reader may fall behind by.
    let sink = try record.data.withLock { (data) throws(EngineRefusal) -> Sink in
      let (initial, hasEvent) = try prepare(&data)
      let footprint = MemoryFootprint.stream + initial.count
      guard memory.hasRoom(for: footprint) else { throw EngineRefusal.memoryExhausted }
      memory.add(footprint)
      streamCount.wrappingAdd(1, ordering: .relaxed)
      let sink = makeSink(MemoryFootprint.streamBufferLimit + initial.count) {
        [weak record, self] in
        record?.data.withLock { data in data.subscribers.removeAll { $0.id == id } }
        streamCount.wrappingSubtract(1, ordering: .relaxed)
        memory.add(-footprint)
        onClose()
      }
      sink.write(initial)
      data.subscribers.append(
        EventSubscriber(id: id, sink: sink, awaitsFirstEvent: !hasEvent))
      let due = Timestamp.now().adding(seconds: configuration.heartbeatSeconds).milliseconds
      heartbeats.withLock { $0.push(sink, at: due) }
      return sink
    }
    return sink
  }

  /// Writes a heartbeat comment to every open stream whose heartbeat is due, and queues its
  /// next one; a stream whose client is gone fails the write, closes, and leaves its session.
  public func sendHeartbeats(now: Timestamp) {
    let due = heartbeats.withLock { $0.popDue(now: now.milliseconds) }
    let next = now.adding(seconds: configuration.heartbeatSeconds).milliseconds
    for sink in due where sink.write(EventStreamFraming.heartbeat) {
      heartbeats.withLock { $0.push(sink, at: next) }
    }
  }
}

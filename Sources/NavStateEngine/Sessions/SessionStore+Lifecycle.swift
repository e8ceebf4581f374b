import NavJSON
public import NavStateWire
package import NavigationCore
import Synchronization

/// Sessions made, read back, kept alive and ended.
extension SessionStore {
  /// Opens a session; returns it with its token (the only time the token is shown).
  package func create(
    graph name: String?, root: RouteRequest?, context: SessionContext = SessionContext(),
    creator: Caller? = nil, client: String, now: Timestamp
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
    var history = SessionHistory()
    history.append(
      SessionHistory.Entry(
        version: navigation.version, at: now, by: creator == .backend ? .backend : .client,
        change: .create(graphVersion: graph.version, root: root, context: context)),
      state: navigation, limit: configuration.historyVersions)
    return try admit(
      navigation, events: events, history: history, generation: generation, client: client,
      now: now)
  }

  /// Takes a new session in (made, or forked): admitted under the caps and the memory budget,
  /// given an id and a token, journaled before anyone learns its id.
  func admit(
    _ navigation: NavigationState, events: [NavigationEvent], history: SessionHistory,
    generation: Int, client: String, now: Timestamp
  ) throws(EngineRefusal) -> (SessionRecord, token: String) {
    let graph = navigation.graph
    guard memory.hasRoom() else { throw EngineRefusal.memoryExhausted }
    try admission.reserve(for: client)
    var data = SessionRecord.Data(
      navigation: navigation, updatedAt: now,
      expiresAt: now.adding(seconds: configuration.sessionTTLSeconds),
      log: EventLog(
        capacity: configuration.eventBufferSize, maxBytes: configuration.eventBufferBytes))
    data.record(events)
    data.history = history
    data.catalogGeneration = UInt32(truncatingIfNeeded: generation)
    data.routeCounts = catalog.counts(for: graph)
    data.accountedBytes = MemoryFootprint.session(data)
    memory.add(data.accountedBytes)
    let token = SecureRandom.token()
    let slot = loader?.creationSlot() ?? configuration.node
    while true {
      let key = slot?.shardIndex.map { SessionID.random(inShard: $0) } ?? SessionID.random()
      let record = SessionRecord(
        key: key, node: slot, token: token, createdAt: now, client: client, data: data)
      let inserted = registry.insert(record)
      if inserted {
        // Journaled before anyone learns the id, so no change to it can come first.
        // No lock is held here: a store that confirms later is waited for at once.
        var feedItems =
          feed.isOn ? FeedItems.started(session: record.key, at: now, state: navigation) : []
        number(&feedItems)
        if let storage, !storage.recordCreation(of: record, data, feed: feedItems).confirmed() {
          giveUp(feedItems)
          if registry.remove(record.key) != nil {
            admission.release(of: client)
            memory.add(-data.accountedBytes)
          } else {
            // Evicted while its commit was under way (``evict(where:)``), which let go of its
            // admission and memory and took its coordinators off the count, never added.
            registry.coordinatorCount.wrappingAdd(navigation.liveCount, ordering: .relaxed)
          }
          throw storage.refusal
        }
        show(feedItems)
        registry.coordinatorCount.wrappingAdd(navigation.liveCount, ordering: .relaxed)
        data.routeCounts?.count(events)
        expiry.schedule(record.key, expiringAt: data.expiresAt)
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
    registry.replace(record)
    admission.readmit(for: record.client)
    registry.coordinatorCount.wrappingAdd(live, ordering: .relaxed)
    memory.add(accounted)
    expiry.schedule(record.key, expiringAt: expiresAt)
    scheduleShares(of: record)
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
    return try record.commitGate.withLock(of: record) { () throws(EngineRefusal) in
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
      var feedItems =
        feed.isOn
        ? FeedItems.ended(
          session: record.key, at: .now(), showing: data.navigation.activeScreen,
          activeSince: data.activeSince, graph: data.navigation.graph.name, reason: reason)
        : []
      number(&feedItems)
      if let storage, !storage.recordEnd(of: record, feed: feedItems).confirmed() {
        // Not kept: the feed shows none of it (a restart expires the session again, and
        // makes its items then).
        giveUp(feedItems)
        if reason == .deleted { throw storage.refusal }
        feedItems = []
      }
      // Kept (or kept nowhere): the items are shown whatever follows, as a restart reads them.
      show(feedItems)
      let removed = registry.remove(record.key)
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
    admission.release(of: record.client)
    expiry.remember(record.key, token: record.token, reason: reason, now: .now())
    account(ended.events, counts: nil)
    // The streams end last, after `session.ended` and after the counts: a client that sees its
    // stream end and then reads /metrics finds the session gone from them.
    for sink in ended.streams { sink.finish() }
    return ended.events
  }

  /// Ends every session idle past its expiry time. Only the sessions whose queued time has come
  /// are looked at: one touched since it was queued goes back in at its new time.
  public func expireIdle(now: Timestamp) {
    let due = expiry.expiries.withLock { $0.popDue(now: now.milliseconds) }
    for id in due {
      // Deleted since it was queued: nothing to do.
      guard let record = registry[id] else { continue }
      let ended = (try? end(record, reason: .expired) { $0.expiresAt <= now }) ?? []
      guard ended.isEmpty else { continue }
      let later = record.data.withLock { $0.ended ? nil : $0.expiresAt }
      if let later { expiry.schedule(id, expiringAt: later) }
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
    expiry.scheduleCacheDrop(record.key, at: due)
  }

  /// Drops the encoded state of sessions that have had no call for `stateCacheIdleSeconds` (they
  /// are no longer in use); one called since its entry was queued goes back in at its new time.
  public func dropIdleCaches(now: Timestamp) {
    let due = expiry.cacheDrops.withLock { $0.popDue(now: now.milliseconds) }
    for id in due {
      guard let record = registry[id] else { continue }
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
      if let later { expiry.scheduleCacheDrop(id, at: later) }
    }
  }

  /// When the session was last called (every call moves its expiry one TTL past it).
  private func lastCall(of data: SessionRecord.Data) -> Timestamp {
    data.expiresAt.adding(seconds: -configuration.sessionTTLSeconds)
  }

}

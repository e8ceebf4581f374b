package import NavJSON
package import NavStateWire
package import NavigationCore
package import Synchronization

/// An open event stream of one session.
package struct EventSubscriber: Sendable {
  package var id: Int
  package var sink: any EventSink
  /// Nothing but the stream's head has been sent: the first event goes out with the `retry:`
  /// line in its block, since some clients (sseclient-py) drop a block that holds `retry:` alone.
  package var awaitsFirstEvent = false
  /// Whose token opened it: presence and `watching` count by it, and a follow share's stream
  /// is sent what a follow share may read.
  package var caller: Caller = .sessionHolder
  /// When it opened (presence's `since`).
  package var since = Timestamp(milliseconds: 0)
}

/// One live session. Its lock serializes the operations on it; other sessions never wait on it.
public final class SessionRecord: Sendable {
  public struct Data: Sendable {
    // The flags first, in the navigation state's tail padding: every session holds one of these.
    package var navigation: NavigationState
    package var ended = false
    /// The session has been called since it was created (a creation is not a call).
    package var called = false
    /// This call follows another within `stateCacheIdleSeconds`: the session is in use, and the
    /// state this call encodes is kept. A session called once (a creation, one operation, then
    /// nothing) never keeps an encoding. Set by each call (see `SessionStore.touch`).
    package var inUse = false
    /// The cache is queued to be dropped once the session idles (see SessionStore).
    package var cacheDropQueued = false
    /// The cache was built since the memory budget last counted it.
    package var cacheUncounted = false
    package var updatedAt: Timestamp
    package var expiresAt: Timestamp
    /// When the active coordinator became active: a `screen.left`'s duration (the feed).
    package var activeSince: Timestamp
    package var log: EventLog
    /// The graph catalog's generation when the session last looked for a newer version of its
    /// graph, in its low 32 bits (see `SessionStore.migrateIfBehind`): only compared for
    /// equality, and held in the event log's tail padding.
    package var catalogGeneration: UInt32 = 0
    package var subscribers: [EventSubscriber] = []
    /// Where the starts and redirects of this session's graph version are counted.
    package var routeCounts: RouteCounts?
    /// What this session is counted for in the memory budget.
    package var accountedBytes = 0
    /// The encoded state, kept only while the session is in use (nil otherwise), so that an idle
    /// session holds no copy of it.
    package var cache: StateCache?
    /// The `Idempotency-Key`s this session was sent and their answers; nil until the first.
    package var idempotency: IdempotencyLedger?
    /// Every version it went through, the newest kept (see ``SessionHistory``).
    package var history = SessionHistory()

    package init(
      navigation: NavigationState, updatedAt: Timestamp, expiresAt: Timestamp, log: EventLog
    ) {
      self.navigation = navigation
      self.updatedAt = updatedAt
      self.expiresAt = expiresAt
      self.activeSince = updatedAt
      self.log = log
    }

    /// Forgets the encoded state (it is rebuilt by the next read or write that needs it).
    package mutating func dropCache() {
      cache = nil
    }
  }

  package let key: SessionID
  /// The node whose name starts the id (`--node`); nil: ids are the key alone.
  package let node: NodeName?
  package let token: SessionToken
  /// Held by a change from before its record is handed to a store that confirms later until
  /// the change is sent to streams: the session's changes stay in order while the data's lock
  /// is let go for the wait, so reads go on meanwhile. Unused without such a store. (Declared
  /// here, in the padding after the token: a million idle records are 16 bytes smaller each.)
  package let commitGate = CommitGate()
  package let createdAt: Timestamp
  /// The address that created it, for the per-client session cap.
  package let client: String
  package let data: Mutex<Data>

  /// The id as clients see it.
  public var id: String { node.map { $0.prefix + key.description } ?? key.description }

  package convenience init(
    key: SessionID, node: NodeName? = nil, token: String, createdAt: Timestamp, client: String,
    data: Data
  ) {
    self.init(
      key: key, node: node, token: SessionToken(issuing: token), createdAt: createdAt,
      client: client, data: data)
  }

  package init(
    key: SessionID, node: NodeName? = nil, token: SessionToken, createdAt: Timestamp,
    client: String, data: Data
  ) {
    self.key = key
    self.node = node
    self.token = token
    self.createdAt = createdAt
    self.client = client
    self.data = Mutex(data)
  }

  package func times(of data: Data) -> SessionTimes {
    SessionTimes(createdAt: createdAt, updatedAt: data.updatedAt, expiresAt: data.expiresAt)
  }

  /// The state alone as JSON, as a response body, as `viewer` sees it.
  package func encodedState(of data: inout Data, viewer: Viewer, watchers: ShareWatchers)
    -> JSONWriter
  {
    var writer = JSONWriter(capacity: 1024)
    writeState(of: &data, into: &writer, viewer: viewer, watchers: watchers)
    return writer
  }

  /// The state as JSON, as `viewer` sees it. In a session in use, all of it but `expiresAt`
  /// and the shares is encoded once per version and kept, so a read copies bytes.
  package func writeState(
    of data: inout Data, into writer: inout JSONWriter, viewer: Viewer, watchers: ShareWatchers
  ) {
    guard !viewer.follows else {
      // Written as the share would see it, then filtered: follow reads are few.
      var owned = JSONWriter(capacity: 1024)
      writeState(
        of: &data, into: &owned, viewer: Viewer(share: viewer.share, follows: false),
        watchers: watchers)
      writer.raw(FollowView.filter(json: owned.bytes, in: data.navigation.graph))
      return
    }
    let shares = sharesView(of: data, for: viewer, watchers: watchers)
    guard let cache = cachedState(of: &data) else {
      StateJSON.writeState(
        data.navigation, id: id, times: times(of: data), shares: shares, into: &writer)
      return
    }
    StateJSON.writeState(
      head: cache.head, expiresAt: data.expiresAt, shares: shares, tail: cache.tail.bytes,
      into: &writer)
  }

  /// What `viewer` sees of the session's shares now, and how many streams watch each; nil for
  /// a session without shares.
  package func sharesView(of data: Data, for viewer: Viewer, watchers: ShareWatchers)
    -> SharesView?
  {
    guard data.navigation.hasShares else { return nil }
    return SharesView(
      shares: data.navigation.shares, only: viewer.share, now: Timestamp.now().milliseconds,
      watching: watchers.watching(key))
  }

  /// The cache brought up to the current version, or nil in a session not in use.
  private func cachedState(of data: inout Data) -> StateCache? {
    guard data.cache != nil || data.inUse, !data.ended else { return nil }
    let cache =
      data.cache
      ?? StateCache(
        fixedHead: StateJSON.encodeFixedHead(
          id: id, graph: data.navigation.graph.name,
          graphVersion: data.navigation.graphVersion, createdAt: createdAt))
    data.cache = cache
    if cache.version != data.navigation.version {
      cache.update(
        to: data.navigation,
        head: StateJSON.encodeHead(
          fixed: cache.fixedHead, version: data.navigation.version, updatedAt: data.updatedAt))
      data.cacheUncounted = true
    }
    return cache
  }
}

extension SessionRecord.Data {
  /// Records the answer to an `Idempotency-Key` (see ``IdempotencyLedger``).
  package mutating func settle(_ key: String, with decision: IdempotencyLedger.Decision) {
    let ledger = idempotency ?? IdempotencyLedger()
    idempotency = ledger
    ledger.settle(key, with: decision)
  }

  /// Keeps the events for clients that catch up later and sends them to every open stream.
  /// Returns how many deliveries were made. Runs under the session's lock, so every stream sees
  /// the events in order and none is missed between a snapshot and a subscription.
  @discardableResult
  package mutating func record(_ events: [NavigationEvent]) -> Int {
    for event in events { log.append(event) }
    return deliver(streamEntries(events))
  }

  /// The events encoded for the open streams (each once, however many streams); none without a
  /// stream, so that a call nobody follows encodes its events only for its own answer.
  package func streamEntries(_ events: [NavigationEvent]) -> [EventLog.Entry] {
    subscribers.isEmpty ? [] : events.map(EventLog.Entry.init)
  }

  /// Sends every open stream a `reset` event holding the whole state as its reader sees it
  /// (`state` writes it for a viewer): after a migration, which no event list describes whole.
  mutating func deliverReset(_ state: (Viewer) -> [UInt8]) {
    var frames: [Viewer: [UInt8]] = [:]
    for subscriber in subscribers where frames[subscriber.caller.viewer] == nil {
      let viewer = subscriber.caller.viewer
      frames[viewer] = EventStreamFraming.event(
        id: navigation.lastSeq, type: "reset", json: state(viewer))
    }
    subscribers.removeAll { subscriber in
      let frame = frames[subscriber.caller.viewer] ?? []
      guard subscriber.awaitsFirstEvent else { return !subscriber.sink.write(frame) }
      return !subscriber.sink.write(EventStreamFraming.retryField + frame)
    }
    for index in subscribers.indices { subscribers[index].awaitsFirstEvent = false }
  }

  /// Sends the entries to every open stream; returns how many deliveries were made. A follow
  /// share's streams get each event as a follow share reads it (``FollowView``), filtered once
  /// however many follow.
  package mutating func deliver(_ entries: [EventLog.Entry]) -> Int {
    guard !subscribers.isEmpty else { return 0 }
    var deliveries = 0
    let graph = navigation.graph
    for entry in entries {
      let frame = EventStreamFraming.event(id: entry.seq, type: entry.type, json: entry.json)
      var followed: [UInt8]?
      // A failed write means the client is gone or too slow: drop it.
      subscribers.removeAll { subscriber in
        var bytes = frame
        if subscriber.caller.follows {
          let filtered =
            followed
            ?? EventStreamFraming.event(
              id: entry.seq, type: entry.type, json: FollowView.filter(json: entry.json, in: graph))
          followed = filtered
          bytes = filtered
        }
        guard subscriber.awaitsFirstEvent else { return !subscriber.sink.write(bytes) }
        return !subscriber.sink.write(EventStreamFraming.retryField + bytes)
      }
      for index in subscribers.indices { subscribers[index].awaitsFirstEvent = false }
      deliveries += subscribers.count
    }
    return deliveries
  }

  /// Takes the streams opened with `share`'s token off the session, to be finished once its
  /// lock is let go (the share ended).
  package mutating func removeStreams(ofShare share: String) -> [any EventSink] {
    var ended: [any EventSink] = []
    subscribers.removeAll { subscriber in
      guard subscriber.caller.share?.id == share else { return false }
      ended.append(subscriber.sink)
      return true
    }
    return ended
  }

}
